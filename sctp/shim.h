// Thin C helpers over usrsctp for the Go package: socket addresses of the
// AF_CONN family carry an opaque peer handle (never a pointer), and every
// call returns -1 with errno set on failure so cgo can report it.
#ifndef SPDYLAB_SCTP_SHIM_H
#define SPDYLAB_SCTP_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

struct socket;

struct shim_opts {
	uint32_t rto_initial_ms, rto_min_ms, rto_max_ms; // 0 = keep
	int sndbuf, rcvbuf;                              // 0 = keep
	int max_burst;                                   // -1 = keep, 0 = no limit
	uint32_t sack_delay_ms, sack_freq;               // freq 0 = keep
	uint16_t ostreams, istreams;
	int nodelay;
	uint32_t mtu;                                    // SCTP packet size limit; 0 = keep
	int cc;                                          // SCTP_CC_* module; -1 = keep
};

void shim_init(void);
void shim_handle_timers(uint32_t elapsed_ms);
void shim_conninput(uintptr_t peer, const void *buf, size_t len);
void shim_register(uintptr_t peer);
void shim_deregister(uintptr_t peer);

struct socket *shim_socket(uintptr_t handle);
void shim_set_handle(struct socket *so, uintptr_t handle);
int shim_configure(struct socket *so, const struct shim_opts *o);
int shim_bind(struct socket *so, uintptr_t peer, uint16_t port);
int shim_listen(struct socket *so, int backlog);
int shim_connect(struct socket *so, uintptr_t peer, uint16_t port);
struct socket *shim_accept(struct socket *so, uintptr_t *peer, uint16_t *port);
int shim_local_port(struct socket *so, uint16_t *port);
ssize_t shim_send(struct socket *so, const void *buf, size_t len, uint16_t sid, uint32_t ppid);
ssize_t shim_recv(struct socket *so, void *buf, size_t len, uint16_t *sid, uint32_t *ppid, uint32_t *tsn, int *flags);
int shim_status(struct socket *so, int *state, uint16_t *in, uint16_t *out);
int shim_events(struct socket *so);
// shim_readback reads the knobs back from the stack for the association.
int shim_readback(struct socket *so, struct shim_opts *o);
int shim_shutdown_write(struct socket *so);
void shim_abort_close(struct socket *so);

#endif
