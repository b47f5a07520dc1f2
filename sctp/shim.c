#include "shim.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <usrsctp.h>

// usrsctp 0.9.5 implements SCTP_PLUGGABLE_CC (netinet/sctp.h) but leaves it
// out of the installed usrsctp.h, which does define the SCTP_CC_* values.
#ifndef SCTP_PLUGGABLE_CC
#define SCTP_PLUGGABLE_CC 0x00001202
#endif

// Implemented in Go (stack.go).
extern int goConnOutput(uintptr_t peer, void *buf, size_t len);
extern void goUpcall(uintptr_t handle);

static int conn_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df) {
	(void)tos;
	(void)set_df;
	return goConnOutput((uintptr_t)addr, buf, len);
}

static void upcall(struct socket *so, void *arg, int flags) {
	(void)so;
	(void)flags;
	goUpcall((uintptr_t)arg);
}

void shim_init(void) {
	// No threads of its own: Go drives timers and feeds packets, so every
	// callback into Go comes from a goroutine, never from a foreign thread.
	usrsctp_init_nothreads(0, conn_output, NULL);
	// Go verifies and computes CRC32c itself (it rewrites ports first).
	usrsctp_enable_crc32c_offload();
}

void shim_handle_timers(uint32_t elapsed_ms) { usrsctp_handle_timers(elapsed_ms); }

void shim_conninput(uintptr_t peer, const void *buf, size_t len) {
	usrsctp_conninput((void *)peer, buf, len, 0);
}

void shim_register(uintptr_t peer) { usrsctp_register_address((void *)peer); }
void shim_deregister(uintptr_t peer) { usrsctp_deregister_address((void *)peer); }

struct socket *shim_socket(uintptr_t handle) {
	struct socket *so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	if (so == NULL) {
		return NULL;
	}
	shim_set_handle(so, handle);
	return so;
}

void shim_set_handle(struct socket *so, uintptr_t handle) {
	usrsctp_set_non_blocking(so, 1);
	usrsctp_set_upcall(so, upcall, (void *)handle);
}

static int setopt(struct socket *so, int level, int name, const void *v, socklen_t n) {
	return usrsctp_setsockopt(so, level, name, v, n);
}

int shim_configure(struct socket *so, const struct shim_opts *o) {
	if (o->sndbuf > 0 && setopt(so, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(int)) < 0) return -1;
	if (o->rcvbuf > 0 && setopt(so, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(int)) < 0) return -1;
	struct sctp_initmsg im;
	memset(&im, 0, sizeof im);
	im.sinit_num_ostreams = o->ostreams;
	im.sinit_max_instreams = o->istreams;
	if (setopt(so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im) < 0) return -1;
	struct sctp_rtoinfo rto;
	memset(&rto, 0, sizeof rto);
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	rto.srto_initial = o->rto_initial_ms;
	rto.srto_min = o->rto_min_ms;
	rto.srto_max = o->rto_max_ms;
	if (setopt(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto) < 0) return -1;
	if (o->sack_freq > 0) {
		struct sctp_sack_info si;
		memset(&si, 0, sizeof si);
		si.sack_assoc_id = SCTP_FUTURE_ASSOC;
		si.sack_delay = o->sack_delay_ms;
		si.sack_freq = o->sack_freq;
		if (setopt(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, sizeof si) < 0) return -1;
	}
	if (o->max_burst >= 0) {
		struct sctp_assoc_value av;
		memset(&av, 0, sizeof av);
		av.assoc_id = SCTP_FUTURE_ASSOC;
		av.assoc_value = (uint32_t)o->max_burst;
		if (setopt(so, IPPROTO_SCTP, SCTP_MAX_BURST, &av, sizeof av) < 0) return -1;
	}
	if (setopt(so, IPPROTO_SCTP, SCTP_NODELAY, &o->nodelay, sizeof(int)) < 0) return -1;
	if (o->mtu > 0) {
		struct sctp_paddrparams pp;
		memset(&pp, 0, sizeof pp);
		pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
		pp.spp_flags = SPP_PMTUD_DISABLE;
		pp.spp_pathmtu = o->mtu;
		if (setopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof pp) < 0) return -1;
	}
	if (o->cc >= 0) {
		// On the endpoint (SCTP_FUTURE_ASSOC): an association copies the
		// module when it is created, the dialled one at connect and the
		// accepted ones from their listener.
		struct sctp_assoc_value av;
		memset(&av, 0, sizeof av);
		av.assoc_id = SCTP_FUTURE_ASSOC;
		av.assoc_value = (uint32_t)o->cc;
		if (setopt(so, IPPROTO_SCTP, SCTP_PLUGGABLE_CC, &av, sizeof av) < 0) return -1;
	}
	int on = 1;
	if (setopt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on) < 0) return -1;
	return 0;
}

static void conn_addr(struct sockaddr_conn *sc, uintptr_t peer, uint16_t port) {
	memset(sc, 0, sizeof *sc);
	sc->sconn_family = AF_CONN;
	sc->sconn_port = htons(port);
	sc->sconn_addr = (void *)peer;
}

int shim_bind(struct socket *so, uintptr_t peer, uint16_t port) {
	struct sockaddr_conn sc;
	conn_addr(&sc, peer, port);
	return usrsctp_bind(so, (struct sockaddr *)&sc, sizeof sc);
}

int shim_listen(struct socket *so, int backlog) { return usrsctp_listen(so, backlog); }

int shim_connect(struct socket *so, uintptr_t peer, uint16_t port) {
	struct sockaddr_conn sc;
	conn_addr(&sc, peer, port);
	return usrsctp_connect(so, (struct sockaddr *)&sc, sizeof sc);
}

struct socket *shim_accept(struct socket *so, uintptr_t *peer, uint16_t *port) {
	struct sockaddr_conn sc;
	socklen_t n = sizeof sc;
	memset(&sc, 0, sizeof sc);
	struct socket *c = usrsctp_accept(so, (struct sockaddr *)&sc, &n);
	if (c != NULL) {
		*peer = (uintptr_t)sc.sconn_addr;
		*port = ntohs(sc.sconn_port);
	}
	return c;
}

int shim_local_port(struct socket *so, uint16_t *port) {
	struct sockaddr *addrs = NULL;
	int n = usrsctp_getladdrs(so, 0, &addrs);
	if (n <= 0) {
		if (n == 0) errno = ENOTCONN;
		return -1;
	}
	*port = ntohs(((struct sockaddr_conn *)addrs)->sconn_port);
	usrsctp_freeladdrs(addrs);
	return 0;
}

ssize_t shim_send(struct socket *so, const void *buf, size_t len, uint16_t sid, uint32_t ppid) {
	struct sctp_sndinfo si;
	memset(&si, 0, sizeof si);
	si.snd_sid = sid;
	si.snd_ppid = htonl(ppid);
	return usrsctp_sendv(so, buf, len, NULL, 0, &si, sizeof si, SCTP_SENDV_SNDINFO, 0);
}

ssize_t shim_recv(struct socket *so, void *buf, size_t len, uint16_t *sid, uint32_t *ppid, uint32_t *tsn, int *flags) {
	struct sctp_rcvinfo ri;
	socklen_t ilen = sizeof ri;
	unsigned int itype = 0;
	memset(&ri, 0, sizeof ri);
	*flags = 0;
	ssize_t n = usrsctp_recvv(so, buf, len, NULL, NULL, &ri, &ilen, &itype, flags);
	if (n >= 0 && itype == SCTP_RECVV_RCVINFO) {
		*sid = ri.rcv_sid;
		*ppid = ntohl(ri.rcv_ppid);
		*tsn = ri.rcv_tsn;
	}
	return n;
}

int shim_status(struct socket *so, int *state, uint16_t *in, uint16_t *out) {
	struct sctp_status st;
	socklen_t n = sizeof st;
	memset(&st, 0, sizeof st);
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st, &n) < 0) return -1;
	*state = st.sstat_state;
	*in = st.sstat_instrms;
	*out = st.sstat_outstrms;
	return 0;
}

int shim_events(struct socket *so) { return usrsctp_get_events(so); }

int shim_shutdown_write(struct socket *so) { return usrsctp_shutdown(so, SHUT_WR); }

void shim_abort_close(struct socket *so) {
	// SO_LINGER 0: close sends ABORT and frees the association at once.
	struct linger l;
	l.l_onoff = 1;
	l.l_linger = 0;
	usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	// The upcall stays: usrsctp_set_upcall(so, NULL, NULL) keeps the
	// socket's SB_UPCALL flags set, so a packet that another goroutine feeds
	// in (usrsctp_conninput) before the socket is gone calls a NULL upcall
	// (seen as SIGSEGV at PC 0 in CI). The upcall only looks the handle up
	// in stack.waiters, which closeSocket empties: a late one is a no-op.
	usrsctp_close(so);
}

static int getopt_(struct socket *so, int level, int name, void *v, socklen_t n) {
	return usrsctp_getsockopt(so, level, name, v, &n);
}

int shim_readback(struct socket *so, struct shim_opts *o) {
	memset(o, 0, sizeof *o);
	if (getopt_(so, SOL_SOCKET, SO_SNDBUF, &o->sndbuf, sizeof(int)) < 0) return -1;
	if (getopt_(so, SOL_SOCKET, SO_RCVBUF, &o->rcvbuf, sizeof(int)) < 0) return -1;
	struct sctp_rtoinfo rto;
	memset(&rto, 0, sizeof rto);
	if (getopt_(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto) < 0) return -1;
	o->rto_initial_ms = rto.srto_initial;
	o->rto_min_ms = rto.srto_min;
	o->rto_max_ms = rto.srto_max;
	struct sctp_sack_info si;
	memset(&si, 0, sizeof si);
	if (getopt_(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, sizeof si) < 0) return -1;
	o->sack_delay_ms = si.sack_delay;
	o->sack_freq = si.sack_freq;
	struct sctp_assoc_value av;
	memset(&av, 0, sizeof av);
	if (getopt_(so, IPPROTO_SCTP, SCTP_MAX_BURST, &av, sizeof av) < 0) return -1;
	o->max_burst = (int)av.assoc_value;
	if (getopt_(so, IPPROTO_SCTP, SCTP_NODELAY, &o->nodelay, sizeof(int)) < 0) return -1;
	// The association's own module (SCTP_FUTURE_ASSOC would give the
	// endpoint's default on a one-to-one socket with no association).
	memset(&av, 0, sizeof av);
	if (getopt_(so, IPPROTO_SCTP, SCTP_PLUGGABLE_CC, &av, sizeof av) < 0) return -1;
	o->cc = (int)av.assoc_value;
	return 0;
}
