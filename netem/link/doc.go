// Package link is spdylab's user-space link emulator core: pure packets in,
// packets out. A Pipe is one direction of a bottleneck link. A packet
// handed to Enqueue goes through, in this order:
//
//  1. random loss (Bernoulli or Gilbert-Elliott, seeded), decided at entry
//     as Linux netem does, so a lost packet never occupies the queue;
//  2. a droptail queue limited in packets or bytes waiting for the link;
//  3. the serialiser: a fixed rate, or a Mahimahi delivery trace;
//  4. a constant one-way propagation delay.
//
// Steps 2 and 3 are computed exactly when the packet arrives: on a FIFO
// link the time a packet finishes serialisation depends only on the packets
// already accepted, so rate and queue behaviour do not depend on timer
// precision. Only step 4 needs to sleep, and it does so on a dedicated OS
// thread with 1 ns timer slack, SCHED_FIFO priority when permitted and a
// learnt early wake-up followed by a short spin, delivering each packet
// within microseconds of its exact time (see Pipe.Timing).
//
// The package knows nothing about TUN devices or namespaces; netem wires
// pipes to those.
package link
