/* proxy_health: the hold-down state machine over every transition, and
 * the M_Key verdict from PortInfo answers built with libibmad. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/mad.h>

#include "proxy/health.h"
#include "proxy/mad.h"
#include "proxy/verdict.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"
#include "tests/unit/unit_db.h"

static uint64_t now_ms = 1000;
static char dbpath[64];
static uint32_t ca, sw;		/* inventory indexes */
#define DR	HEALTH_WAY(0, 0)	/* the way the old tests go */

static uint64_t
fake_clock(void)
{
	return now_ms;
}

static void
sweep(uint64_t guid, int type)
{
	struct store_node n;
	struct store_port p[3];

	memset(&n, 0, sizeof(n));
	memset(p, 0, sizeof(p));
	n.guid = guid;
	n.type = (uint8_t)type;
	n.num_ports = 2;
	store_path_parse("0,1", &n.route);
	for (int i = 0; i < 3; i++) {
		p[i].num = (uint8_t)i;
		p[i].route.hop[0] = 0xff;
	}
	store_sweep_node(&n, p);
}

static int
setup(void **state)
{
	unsigned nodes, lost;

	log_init("test_health", 1, LOG_CRIT);
	ev_set_clock(fake_clock);
	snprintf(dbpath, sizeof(dbpath), "/tmp/ibsnmpgw-health-%d.db",
	    getpid());
	unlink(dbpath);
	assert_int_equal(store_init(dbpath), 0);
	store_sweep_begin();
	sweep(0x100, STORE_NODE_CA);
	sweep(0x200, STORE_NODE_SWITCH);
	store_sweep_end(&nodes, &lost);
	ca = store_node_by_guid(0x100)->idx;
	sw = store_node_by_guid(0x200)->idx;
	proxy_health_init(10);
	proxy_mad_set_mkey(0);
	proxy_health_reset();
	return 0;
}

static int
teardown(void **state)
{
	proxy_health_finalise();
	store_finalise();
	unit_db_remove(dbpath);
	ev_set_clock(NULL);
	return 0;
}

static enum proxy_health_state
state_of(uint32_t node)
{
	struct proxy_health_info hi;

	proxy_health_get(node, &hi);
	return hi.state;
}

static void
test_hold_down(void **state)
{
	struct proxy_health_info hi;

	/* Below the threshold nothing is held; an answer forgets. */
	for (int i = 0; i < HEALTH_FAILS - 1; i++)
		proxy_health_silent(7, DR, 0);
	assert_int_equal(state_of(7), HEALTH_OK);
	assert_int_equal(proxy_health_allow(7, DR, 1), 1);
	proxy_health_answer(7, DR);
	proxy_health_get(7, &hi);
	assert_int_equal(hi.fails, 0);

	/* HEALTH_FAILS in a row: on hold for the hold-down. */
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(7, DR, 0);
	assert_int_equal(state_of(7), HEALTH_SILENT);
	assert_int_equal(proxy_health_allow(7, DR, 1), 0);
	assert_int_equal(proxy_health_allow(8, DR, 1), 1);	/* others unaffected */
	/* Requests sent before the hold that time out now are stale: the
	 * hold does not grow. */
	proxy_health_silent(7, DR, 0);
	proxy_health_get(7, &hi);
	assert_true(hi.hold_ms == 10000);
	now_ms += 9999;
	assert_int_equal(proxy_health_allow(7, DR, 1), 0);
	now_ms += 1;
	/* Only an attribute every node answers may probe. */
	assert_int_equal(proxy_health_allow(7, DR, 0), 0);
	/* One probe goes, the next waits for its outcome. */
	assert_int_equal(proxy_health_allow(7, DR, 1), HEALTH_PROBE);
	assert_int_equal(proxy_health_allow(7, DR, 1), 0);
	/* Another request's unsent outcome does not free the probe slot. */
	proxy_health_unsent(7, DR, 0);
	assert_int_equal(proxy_health_allow(7, DR, 1), 0);
	/* The probe is silent too: the hold-down doubles. */
	proxy_health_silent(7, DR, HEALTH_PROBE);
	proxy_health_get(7, &hi);
	assert_true(hi.hold_ms == 20000);
	assert_true(hi.until == now_ms + 20000);
	/* ... up to the cap. */
	for (int i = 0; i < 10; i++) {
		now_ms = hi.until;
		assert_int_equal(proxy_health_allow(7, DR, 1), HEALTH_PROBE);
		proxy_health_silent(7, DR, HEALTH_PROBE);
		proxy_health_get(7, &hi);
	}
	assert_true(hi.hold_ms == HEALTH_MAX_HOLD_MS);
	/* A probe that could not be sent does not block the next. */
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(7, DR, 1), HEALTH_PROBE);
	proxy_health_unsent(7, DR, HEALTH_PROBE);
	assert_int_equal(proxy_health_allow(7, DR, 1), HEALTH_PROBE);
	/* An answer ends the hold. */
	proxy_health_answer(7, DR);
	assert_int_equal(state_of(7), HEALTH_OK);
	assert_int_equal(proxy_health_allow(7, DR, 1), 1);
	/* A hold-down above the usual cap is its own cap. */
	proxy_health_set_hold(120);
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(10, DR, 0);
	for (int i = 0; i < 3; i++) {
		proxy_health_get(10, &hi);
		now_ms = hi.until;
		assert_int_equal(proxy_health_allow(10, DR, 1), HEALTH_PROBE);
		proxy_health_silent(10, DR, HEALTH_PROBE);
	}
	proxy_health_get(10, &hi);
	assert_true(hi.hold_ms == 120000);
	/* hold-down 0: never hold. */
	proxy_health_set_hold(0);
	for (int i = 0; i < 2 * HEALTH_FAILS; i++)
		proxy_health_silent(9, DR, 0);
	assert_int_equal(state_of(9), HEALTH_OK);
	proxy_health_set_hold(10);
}

/* verdict.py's race: node03 port 1's LID route crossed a link that
 * went down. The hold covers that way; the node's other ways each send
 * one scout and, answered, go on. */
static void
test_ways(void **state)
{
	const unsigned lid1 = HEALTH_WAY(1, 1), lid2 = HEALTH_WAY(1, 2);
	const unsigned dr2 = HEALTH_WAY(0, 2);
	struct proxy_health_info hi;

	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, lid1, 0);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1));
	assert_int_equal(proxy_health_allow(ca, lid1, 1), 0);
	/* Another way: one scout, and only a request every node answers. */
	assert_int_equal(proxy_health_allow(ca, DR, 0), 0);
	assert_int_equal(proxy_health_allow(ca, DR, 1), HEALTH_SCOUT);
	assert_int_equal(proxy_health_allow(ca, DR, 1), 0);
	/* Answered: that way goes on; the held one stays held. */
	proxy_health_answer(ca, DR);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
	assert_int_equal(proxy_health_allow(ca, DR, 0), 1);
	assert_int_equal(proxy_health_allow(ca, DR, 1), 1);
	assert_int_equal(proxy_health_allow(ca, lid1, 1), 0);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.good, HEALTH_WAY_BIT(DR));
	/* A stale silence on a way that answered changes nothing. */
	proxy_health_silent(ca, DR, 0);
	assert_int_equal(proxy_health_allow(ca, DR, 1), 1);
	/* A scout that could not be sent frees the way's scout slot. */
	assert_int_equal(proxy_health_allow(ca, dr2, 1), HEALTH_SCOUT);
	proxy_health_unsent(ca, dr2, HEALTH_SCOUT);
	assert_int_equal(proxy_health_allow(ca, dr2, 1), HEALTH_SCOUT);
	/* A silent scout: its way is held at once, the hold-down as it
	 * was. */
	proxy_health_silent(ca, dr2, HEALTH_SCOUT);
	assert_int_equal(proxy_health_allow(ca, dr2, 1), 0);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1) | HEALTH_WAY_BIT(dr2));
	assert_true(hi.hold_ms == 10000);
	/* The held ways probe after the hold-down; silent, it doubles. */
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, lid1, 1), HEALTH_PROBE);
	assert_int_equal(proxy_health_allow(ca, dr2, 1), 0);
	proxy_health_silent(ca, lid1, HEALTH_PROBE);
	proxy_health_get(ca, &hi);
	assert_true(hi.hold_ms == 20000);
	assert_int_equal(hi.good, HEALTH_WAY_BIT(DR));
	/* An answered probe ends the whole hold. */
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, dr2, 1), HEALTH_PROBE);
	proxy_health_answer(ca, dr2);
	assert_int_equal(state_of(ca), HEALTH_OK);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held | hi.good | hi.fails, 0);
	assert_int_equal(proxy_health_allow(ca, lid1, 1), 1);

	/* A dead node: the run's ways are held; one scout more each. */
	proxy_health_silent(ca, DR, 0);
	proxy_health_silent(ca, lid1, 0);
	proxy_health_silent(ca, DR, 0);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(DR) | HEALTH_WAY_BIT(lid1));
	assert_int_equal(proxy_health_allow(ca, lid2, 1), HEALTH_SCOUT);
	proxy_health_silent(ca, lid2, HEALTH_SCOUT);
	assert_int_equal(proxy_health_allow(ca, lid2, 1), 0);
	/* A sweep that reaches it ends every hold. */
	proxy_health_answer(ca, HEALTH_ALL_WAYS);
	assert_int_equal(state_of(ca), HEALTH_OK);
	assert_int_equal(proxy_health_allow(ca, lid2, 1), 1);
	/* Ports past 3 share a way. An answer by the way itself forgets
	 * its silences... */
	assert_int_equal(HEALTH_WAY(1, 7), HEALTH_WAY(1, 3));
	proxy_health_silent(ca, lid1, 0);
	proxy_health_silent(ca, lid1, 0);
	proxy_health_answer(ca, lid1);
	proxy_health_silent(ca, lid1, 0);
	assert_int_equal(state_of(ca), HEALTH_OK);
	/* ... an answer by another way does not: a broken way among
	 * working ones is held alone; the ways that answered go on, the
	 * others scout. */
	proxy_health_answer(ca, DR);
	proxy_health_silent(ca, lid1, 0);
	proxy_health_answer(ca, DR);
	assert_int_equal(state_of(ca), HEALTH_OK);
	proxy_health_silent(ca, lid1, 0);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1));
	assert_int_equal(hi.good, HEALTH_WAY_BIT(DR));
	assert_int_equal(proxy_health_allow(ca, lid1, 1), 0);
	assert_int_equal(proxy_health_allow(ca, DR, 0), 1);
	assert_int_equal(proxy_health_allow(ca, dr2, 1), HEALTH_SCOUT);
	/* Its answered probe ends it, and every way starts afresh. */
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, lid1, 1), HEALTH_PROBE);
	proxy_health_answer(ca, lid1);
	assert_int_equal(state_of(ca), HEALTH_OK);
	proxy_health_silent(ca, lid1, 0);
	proxy_health_silent(ca, lid1, 0);
	assert_int_equal(state_of(ca), HEALTH_OK);
}

/* A probe and a scout still out when a sweep ended their hold, silent
 * after a new hold began: stale news like any request sent before it.
 * The new hold keeps its hold-down, its own probe and scout go. */
static void
test_stale_probe(void **state)
{
	const unsigned lid1 = HEALTH_WAY(1, 1), lid2 = HEALTH_WAY(1, 2);
	struct proxy_health_info hi;

	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, DR, 0);
	proxy_health_get(ca, &hi);
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, DR, 1), HEALTH_PROBE);
	assert_int_equal(proxy_health_allow(ca, lid2, 1), HEALTH_SCOUT);
	proxy_health_answer(ca, HEALTH_ALL_WAYS);	/* a sweep */
	assert_int_equal(state_of(ca), HEALTH_OK);
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, lid1, 0);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1));
	assert_true(hi.hold_ms == 10000);
	/* The old probe and scout end silent. */
	proxy_health_silent(ca, DR, HEALTH_PROBE);
	proxy_health_silent(ca, lid2, HEALTH_SCOUT);
	proxy_health_get(ca, &hi);
	assert_true(hi.hold_ms == 10000);
	assert_true(hi.until == now_ms + 10000);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1));
	assert_int_equal(proxy_health_allow(ca, lid2, 1), HEALTH_SCOUT);
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, lid1, 1), HEALTH_PROBE);
	/* This hold's own probe, silent, doubles it. */
	proxy_health_silent(ca, lid1, HEALTH_PROBE);
	proxy_health_get(ca, &hi);
	assert_true(hi.hold_ms == 20000);
}

/* A way that goes on during a hold and then falls silent is held too:
 * the node died after a link on another way went down. Until then its
 * held way's silent probe does not rate it unresponsive. */
static void
test_way_dies(void **state)
{
	const unsigned lid1 = HEALTH_WAY(1, 1), lid2 = HEALTH_WAY(1, 2);
	struct proxy_health_info hi;
	struct proxy_verdict_conf c;
	struct proxy_verdict_info vi;

	proxy_verdict_defaults(&c);
	assert_int_equal(proxy_verdict_init(&c), 0);
	for (int i = 0; i < HEALTH_FAILS; i++) {
		proxy_health_answer(ca, DR);
		proxy_health_silent(ca, lid1, 0);
	}
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.state, HEALTH_SILENT);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1));
	assert_int_equal(hi.good, HEALTH_WAY_BIT(DR));
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, lid1, 1), HEALTH_PROBE);
	proxy_health_silent(ca, lid1, HEALTH_PROBE);
	proxy_verdict_get(0x100, 0, &vi);
	assert_int_equal(vi.verdict, VERDICT_HEALTHY);
	/* An answer between silences restarts the way's count. */
	proxy_health_silent(ca, DR, 0);
	proxy_health_silent(ca, DR, 0);
	proxy_health_answer(ca, DR);
	proxy_health_silent(ca, DR, 0);
	proxy_health_silent(ca, DR, 0);
	assert_int_equal(proxy_health_allow(ca, DR, 0), 1);
	/* The third in a row holds it. */
	proxy_health_silent(ca, DR, 0);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(lid1) | HEALTH_WAY_BIT(DR));
	assert_int_equal(hi.good, 0);
	assert_int_equal(proxy_health_allow(ca, DR, 1), 0);
	/* Silent by every way that went on: the next silent probe rates
	 * the node unresponsive. */
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, DR, 1), HEALTH_PROBE);
	proxy_health_silent(ca, DR, HEALTH_PROBE);
	proxy_verdict_get(0x100, 0, &vi);
	assert_int_equal(vi.verdict, VERDICT_UNHEALTHY);
	assert_int_equal(vi.rule, VR_UNRESPONSIVE);
	/* A sweep that reaches it ends the hold. */
	proxy_health_answer(ca, HEALTH_ALL_WAYS);
	assert_int_equal(state_of(ca), HEALTH_OK);

	/* A scout whose way a request sent before the hold answered: the
	 * scout's silence counts as that way's first, it is not held. */
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, DR, 0);
	assert_int_equal(proxy_health_allow(ca, lid2, 1), HEALTH_SCOUT);
	proxy_health_answer(ca, lid2);
	proxy_health_silent(ca, lid2, HEALTH_SCOUT);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(DR));
	assert_int_equal(hi.good, HEALTH_WAY_BIT(lid2));
	assert_int_equal(proxy_health_allow(ca, lid2, 0), 1);
	proxy_verdict_finalise();
}

static void
portinfo(struct smp_portinfo *pi, uint64_t mkey, uint32_t prot)
{
	uint8_t d[64];

	memset(d, 0, sizeof(d));
	mad_encode_field(d, IB_PORT_MKEY_F, &mkey);
	mad_encode_field(d, IB_PORT_MKEY_PROT_BITS_F, &prot);
	assert_int_equal(smp_decode_portinfo(d, sizeof(d), pi), 0);
	assert_int_equal(pi->mkey_prot, prot);
}

static void
test_mkey_verdict(void **state)
{
	struct smp_portinfo pi;
	struct proxy_health_info hi;

	proxy_mad_set_mkey(0x1111);
	/* Unprotected: any key reads; nothing to say. */
	portinfo(&pi, 0x2222, 0);
	proxy_health_portinfo(sw, 0, &pi);
	proxy_health_get(sw, &hi);
	assert_int_equal(hi.mkey_prot, 0);
	assert_int_equal(hi.mkey_mismatch, 0);
	/* Protected and shown to us: our key is the node's. */
	portinfo(&pi, 0x1111, 1);
	proxy_health_portinfo(sw, 0, &pi);
	proxy_health_get(sw, &hi);
	assert_int_equal(hi.mkey_mismatch, 0);
	/* Protected and hidden (zero): ours is not the node's. */
	portinfo(&pi, 0, 2);
	proxy_health_portinfo(sw, 0, &pi);
	proxy_health_get(sw, &hi);
	assert_int_equal(hi.mkey_mismatch, 1);
	assert_int_equal(hi.state, HEALTH_OK);	/* reads still work */
	/* A switch's external ports do not carry its M_Key. */
	portinfo(&pi, 0, 0);
	proxy_health_portinfo(sw, 5, &pi);
	proxy_health_get(sw, &hi);
	assert_int_equal(hi.mkey_prot, 2);
	assert_int_equal(hi.mkey_mismatch, 1);
	/* Then silent: held as bad M_Key, not as unreachable. */
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(sw, DR, 0);
	assert_int_equal(state_of(sw), HEALTH_BAD_MKEY);
	assert_int_equal(proxy_health_allow(sw, DR, 1), 0);
	/* A new key clears the verdict and the hold at once (main.c's
	 * apply_mkey() resets health when it changes the key). */
	proxy_health_reset();
	proxy_mad_set_mkey(0x3333);
	assert_int_equal(state_of(sw), HEALTH_OK);
	assert_int_equal(proxy_health_allow(sw, DR, 1), 1);
	proxy_health_get(sw, &hi);
	assert_int_equal(hi.mkey_mismatch, 0);
	assert_int_equal(hi.mkey_prot, -1);
	/* A CA: one port's mismatch is the node's, whatever the other
	 * port says... */
	portinfo(&pi, 0, 1);
	proxy_health_portinfo(ca, 1, &pi);
	portinfo(&pi, 0x3333, 1);
	proxy_health_portinfo(ca, 2, &pi);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.mkey_mismatch, 1);
	/* ... until that port shows our key (the SM was fixed) or drops
	 * its protection. */
	portinfo(&pi, 0x3333, 2);
	proxy_health_portinfo(ca, 1, &pi);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.mkey_mismatch, 0);
	assert_int_equal(hi.mkey_prot, 2);
	portinfo(&pi, 0, 0);
	proxy_health_portinfo(ca, 1, &pi);
	proxy_health_portinfo(ca, 2, &pi);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.mkey_prot, 0);
	/* No key of ours and protection level 3 seen: silence is blamed
	 * on the M_Key. */
	proxy_mad_set_mkey(0);
	portinfo(&pi, 0, 3);
	proxy_health_portinfo(ca, 1, &pi);
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, DR, 0);
	assert_int_equal(state_of(ca), HEALTH_BAD_MKEY);
	/* A sweep or a probe that gets an answer ends it. */
	proxy_health_answer(ca, DR);
	assert_int_equal(state_of(ca), HEALTH_OK);
	/* PerfMgt MADs carry no M_Key: silent by LID alone, the node is
	 * silent, not refusing our key. */
	for (int i = 0; i < HEALTH_FAILS; i++)
		proxy_health_silent(ca, HEALTH_WAY(1, 1), 0);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
	/* ... also when the LID way's probe is silent after a
	 * directed-route silence that its hold does not cover. */
	proxy_health_answer(ca, HEALTH_ALL_WAYS);
	proxy_health_silent(ca, HEALTH_WAY(1, 1), 0);
	proxy_health_silent(ca, HEALTH_WAY(1, 1), 0);
	proxy_health_answer(ca, DR);
	proxy_health_silent(ca, DR, 0);
	proxy_health_silent(ca, HEALTH_WAY(1, 1), 0);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
	proxy_health_get(ca, &hi);
	assert_int_equal(hi.held, HEALTH_WAY_BIT(HEALTH_WAY(1, 1)));
	now_ms = hi.until;
	assert_int_equal(proxy_health_allow(ca, HEALTH_WAY(1, 1), 1),
	    HEALTH_PROBE);
	proxy_health_silent(ca, HEALTH_WAY(1, 1), HEALTH_PROBE);
	assert_int_equal(state_of(ca), HEALTH_SILENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hold_down, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mkey_verdict, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_probe, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_way_dies, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
