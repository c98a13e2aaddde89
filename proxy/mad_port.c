/* proxy_mad: the local port. Opening it and registering the classes,
 * IsSM, its state, and reopening it with backoff when it fails. */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "codec/attr.h"
#include "codec/tunnel.h"
#include "proxy/mad_int.h"
#include "util/ev.h"
#include "util/log.h"

#define BACKOFF_MIN_MS	1000
#define BACKOFF_MAX_MS	60000

/* Silence from everyone may be our own port: a pulled cable leaves
 * the device open and every MAD unanswered (PortState Down). Its state
 * costs a sysfs read, so at most once a second, and only when something
 * timed out. */
int
mad_local_port_active(struct mad_engine *e)
{
	umad_port_t p;
	int active;

	if (umad_get_port(e->ca, e->port, &p) < 0)
		return 0;
	/* Init and up: the link is there (DR SMPs work without an SM);
	 * Down (1): no MAD leaves the port. */
	active = p.state >= 2;
	umad_release_port(&p);
	return active;
}

/* The agent registered for a management class (port_open). */
int
mad_agent_of(struct mad_engine *e, uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case ATTR_CLASS_SMI_DR: return e->agent_dr;
	case ATTR_CLASS_SMI: return e->agent_lid;
	case IB_SA_CLASS: return e->agent_sa;
	case TUN_MGMT_CLASS: return e->agent_tun;
	}
	return e->agent_perf;
}

/* The SA agent: RMPP version 1 (the kernel reassembles the SA's multi-
 * segment answers, IBA 13.6, and acknowledges the segments), and the
 * Report method (13.4.5 Table 104, 0x06), so the SA's Reports of the
 * traps we subscribe to reach us (IBA 13.4.8.2). Only one agent per
 * port may take a class's method: if another has it, queries still
 * work and SM events come from sweeps alone. */
static int
register_sa(struct mad_engine *e)
{
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, sizeof(mask));
	mask[IB_MAD_METHOD_REPORT / bits] |= 1L << (IB_MAD_METHOD_REPORT %
	    bits);
	e->agent_sa = umad_register(e->fd, IB_SA_CLASS, 2, 1, mask);
	e->reports = e->agent_sa >= 0;
	if (e->agent_sa < 0) {
		e->agent_sa = umad_register(e->fd, IB_SA_CLASS, 2, 1, NULL);
		if (e->agent_sa >= 0)
			log_warnx("mad: another agent on %s port %d takes SA "
			    "Reports: no SM events, sweeps only", e->ca,
			    e->port);
	}
	return e->agent_sa;
}

/* IB SNMP Tunneling (IBA 16.4, docs/tunneling.md): class version 1,
 * and the SNMPSend method, by which agents send their replies. Without
 * it the rest works, and no node is tunneled to. */
static void
register_tunnel(struct mad_engine *e)
{
	long mask[16 / sizeof(long)];
	const unsigned bits = 8 * sizeof(long);

	memset(mask, 0, sizeof(mask));
	mask[TUN_METHOD_SEND / bits] |= 1L << (TUN_METHOD_SEND % bits);
	e->agent_tun = umad_register(e->fd, TUN_MGMT_CLASS,
	    TUN_CLASS_VERSION, 0, mask);
	if (e->agent_tun < 0)
		log_warnx("mad: cannot register the SNMP tunneling class on "
		    "%s port %d: no tunneling", e->ca, e->port);
}

/* ib.sim-issm: set IsSM on the port (opening the issm device, as an SM
 * does) so that ibsim delivers requests to us at all: it forwards SA
 * Reports only to clients of IsSM ports. Never on hardware: the port
 * would look like a standby SM to the fabric's SM. */
static void
issm_open(struct mad_engine *e)
{
	char path[256];

	if (e->issm_fd >= 0)
		return;
	if (umad_get_issm_path(e->ca, e->port, path, sizeof(path)) < 0 ||
	    (e->issm_fd = open(path, O_RDWR)) < 0)
		log_warn("mad: cannot set IsSM (ib.sim-issm) on %s port %d",
		    e->ca, e->port);
}

/* Unregister our agents, then close. The kernel would free them on
 * close anyway; umad2sim frees one per close, and its 32 agent slots
 * ran out on the 8th reopen (tests/sim/README.md). */
static void
port_close(struct mad_engine *e)
{
	int *agents[] = { &e->agent_dr, &e->agent_lid, &e->agent_perf,
	    &e->agent_sa, &e->agent_tun };

	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		if (*agents[i] >= 0)
			(void)umad_unregister(e->fd, *agents[i]);
		*agents[i] = -1;
	}
	umad_close_port(e->fd);
	e->fd = -1;
}

/* Open the port and register the classes; -1 leaves it closed. */
static int
port_open(struct mad_engine *e)
{
	if ((e->fd = umad_open_port(e->ca, e->port)) < 0)
		return -1;
	if ((e->agent_dr = umad_register(e->fd, ATTR_CLASS_SMI_DR, 1, 0,
	    NULL)) < 0 ||
	    (e->agent_lid = umad_register(e->fd, ATTR_CLASS_SMI, 1, 0,
	    NULL)) < 0 ||
	    (e->agent_perf = umad_register(e->fd, ATTR_CLASS_PERF, 1, 0,
	    NULL)) < 0 ||
	    register_sa(e) < 0) {
		port_close(e);
		return -1;
	}
	register_tunnel(e);
	if (e->issm)
		issm_open(e);
	return 0;
}

/* The port or its device is gone (the scheduler failed what it had):
 * the reopen begins. */
void
mad_port_reopen(struct mad_engine *e)
{
	e->backoff_ms = BACKOFF_MIN_MS;
	e->reopen_tries = 0;
	ev_timer_add(&e->reopen_timer, e->backoff_ms);
}

/* Bounded backoff: 1 s, doubling to 60 s, for as long as it takes. */
static void
reopen_cb(void *arg)
{
	struct mad_engine *e = arg;

	mad_reader_stop(e);
	if (e->fd >= 0)
		port_close(e);
	e->reopen_tries++;
	if (port_open(e) == -1 || !mad_local_port_active(e) ||
	    mad_reader_start(e) == -1) {
		if (e->fd >= 0 && !e->thread_on)
			port_close(e);
		if (e->backoff_ms < BACKOFF_MAX_MS)
			e->backoff_ms *= 2;
		if (e->backoff_ms > BACKOFF_MAX_MS)
			e->backoff_ms = BACKOFF_MAX_MS;
		log_debug("mad: %s port %d: reopen %u failed, next in %llu ms",
		    e->ca, e->port, e->reopen_tries,
		    (unsigned long long)e->backoff_ms);
		ev_timer_add(&e->reopen_timer, e->backoff_ms);
		return;
	}
	e->down = 0;
	e->st.reopens++;
	log_notice("mad: %s port %d is up again after %llu ms (%u reopen "
	    "attempts)", e->ca, e->port, (unsigned long long)(ev_now() -
	    e->down_at), e->reopen_tries);
	if (e->up_fn != NULL)
		e->up_fn(e->up_arg);
}

/* The port the engine is for, as infiniband-diags' -C/-P name it, opened
 * and its classes registered; -1, logged, if not. */
int
mad_port_init(struct mad_engine *e, const char *ca, int port)
{
	umad_port_t p;

	ev_timer_init(&e->reopen_timer, reopen_cb, e);
	if (umad_init() < 0) {
		log_warnx("mad: umad_init failed");
		return -1;
	}
	/* Same defaults as infiniband-diags -C/-P: first CA, first
	 * active port, as libibumad resolves them. */
	if (umad_get_port(ca, port, &p) < 0) {
		log_warnx("mad: no usable IB port (ca %s, port %d)",
		    ca ? ca : "(default)", port);
		return -1;
	}
	snprintf(e->ca, sizeof(e->ca), "%s", p.ca_name);
	e->port = p.portnum;
	e->port_guid = be64toh(p.port_guid);
	umad_release_port(&p);
	if (port_open(e) == -1) {
		log_warnx("mad: cannot open %s port %d or register its "
		    "management classes", e->ca, e->port);
		return -1;
	}
	return 0;
}

/* Shutdown: the port is forgotten, and IsSM is off. */
void
mad_port_close(struct mad_engine *e)
{
	/* Callbacks must not submit during shutdown: e->fd is forgotten
	 * (and closed, unless the process exits: proxy_mad_exiting). */
	if (e->fd >= 0 && !e->exiting)
		port_close(e);
	e->fd = -1;
	if (e->issm_fd >= 0)
		close(e->issm_fd);	/* IsSM off again */
	e->issm_fd = -1;
}

int
mad_port_local(struct mad_engine *e, struct proxy_local_port *lp)
{
	umad_port_t p;

	if (umad_get_port(e->ca[0] ? e->ca : NULL, e->port, &p) < 0) {
		log_warnx("mad: cannot read local port %s/%d", e->ca,
		    e->port);
		return -1;
	}
	memset(lp, 0, sizeof(*lp));
	snprintf(lp->ca, sizeof(lp->ca), "%s", p.ca_name);
	lp->port = p.portnum;
	lp->lid = p.base_lid;
	lp->sm_lid = p.sm_lid;
	lp->port_guid = be64toh(p.port_guid);
	lp->state = p.state;
	umad_release_port(&p);
	return 0;
}

void
mad_port_set_issm(struct mad_engine *e, int on)
{
	e->issm = on;
	if (on && e->fd >= 0)
		issm_open(e);
	else if (!on && e->issm_fd >= 0) {
		close(e->issm_fd);
		e->issm_fd = -1;
	}
}
