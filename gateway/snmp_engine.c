/* gw_snmp engine identity: snmpEngineID and snmpEngineBoots (RFC 3411
 * 5; RFC 3414 2.2), kept by the gateway rather than by net-snmp.
 *
 * net-snmp keeps both in its persistent file (state-dir/snmp/
 * ibsnmpgw.conf), written without fsync, and a lost or restored file
 * takes boots backwards. The gateway's store keeps them instead, in the
 * meta table:
 *   snmp-engine-id     the generated engine ID, "0x..." (used unless
 *                      snmp.engine-id is set: stable across restarts)
 *   snmp-engine-boots  the boots of the last start, an integer
 * Why the meta table and not a file next to the database: schema 7
 * has it (key/value), so no migration, and an older release reads past
 * unknown keys; SQLite gives the atomic, synced write a file would need
 * rename and two fsyncs for; and the database is already what a backup,
 * a restore or an HA replica carries. The boots row is committed with
 * synchronous=FULL before any listener opens.
 *
 * net-snmp still reads its own file first: its boots (already one up)
 * and its engine ID carry an existing installation over, since the
 * start takes the higher of both boots. */
#include "config.h"

#include <string.h>
#include <sys/random.h>

#include "gateway/conf.h"
#include "gateway/snmp.h"
#include "store/schema.h"
#include "util/log.h"

#define ID_KEY		"snmp-engine-id"
#define BOOTS_KEY	"snmp-engine-boots"

static uint8_t	eng_default[GW_ENGINE_ID_MAX];	/* the generated ID */
static size_t	eng_default_len;	/* 0: net-snmp's, not known yet */
static int	eng_default_stored;	/* in meta already */

uint32_t
gw_snmp_boots_next(uint32_t b)
{
	/* RFC 3414 2.2.2: at 2147483647 it stays there. */
	return b >= GW_SNMP_BOOTS_MAX ? GW_SNMP_BOOTS_MAX : b + 1;
}

static void
hex(const uint8_t *id, size_t len, char *buf, size_t buflen)
{
	size_t o = (size_t)snprintf(buf, buflen, "0x");

	for (size_t i = 0; i < len && o + 3 <= buflen; i++)
		o += (size_t)snprintf(buf + o, buflen - o, "%02x", id[i]);
}

/* Boots b into net-snmp: the value USM checks requests against
 * (snmpv3_local_snmpEngineBoots) and the one its outgoing messages
 * carry (the LCD entry of our own engine ID, RFC 3414 2.3). Only its
 * config handler sets it; it adds the one a start adds. The engine
 * time goes on: net-snmp has no setter for it outside test builds. */
static void
apply(uint32_t b)
{
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t n;
	char s[16];

	snprintf(s, sizeof(s), "%lu", (unsigned long)b - 1);
	engineBoots_conf("engineBoots", s);
	if ((n = snmpv3_get_engineID(eid, sizeof(eid))) > 0)
		set_enginetime(eid, (u_int)n, (u_int)b,
		    (u_int)snmpv3_local_snmpEngineTime(), TRUE);
}

static int
persist(uint32_t b)
{
	if (store_meta_put_int(BOOTS_KEY, b, 1) == -1) {
		log_warnx("snmp: snmpEngineBoots %lu could not be stored",
		    (unsigned long)b);
		return -1;
	}
	if (b == GW_SNMP_BOOTS_MAX)
		log_warnx("snmp: snmpEngineBoots is at its maximum, %lu, and "
		    "stays there; managers may refuse this engine until it "
		    "has a new snmp.engine-id (RFC 3414 2.2.2)",
		    (unsigned long)b);
	return 0;
}

/* The generated engine ID of an earlier start: 1, 0 if none, -1. */
static int
load_default(void)
{
	char text[2 + 2 * GW_ENGINE_ID_MAX + 1];
	const char *why;
	int rc = store_meta_get_text(ID_KEY, text, sizeof(text));

	if (rc != 1)
		return rc;
	if ((why = gw_conf_engine_id(text, eng_default, &eng_default_len)) !=
	    NULL) {
		log_warnx("snmp: the stored engine ID (meta %s) %s", ID_KEY,
		    why);
		eng_default_len = 0;
		return -1;
	}
	eng_default_stored = 1;
	return 1;
}

/* A new engine ID in net-snmp's own default form (RFC 3411 5,
 * enterprise-specific format): 80 00 1f 88, format 80, 12 random. */
static int
generate_default(void)
{
	static const uint8_t head[] = { 0x80, 0x00, 0x1f, 0x88, 0x80 };

	memcpy(eng_default, head, sizeof(head));
	if (getrandom(eng_default + sizeof(head), 12, 0) != 12) {
		log_warn("snmp: getrandom");
		return -1;
	}
	eng_default_len = sizeof(head) + 12;
	return 0;
}

int
gw_snmp_engine_prepare(const struct gw_conf *c)
{
	int rc;

	eng_default_len = 0;
	eng_default_stored = 0;
	if ((rc = load_default()) == -1) {
		log_warnx("snmp: not starting with another engine ID: "
		    "managers would have to discover it again; set "
		    "snmp.engine-id, or delete that row to have one made");
		return -1;
	}
	/* None stored and none configured: net-snmp's (from its file, or
	 * new), stored by gw_snmp_engine_start(). */
	if (rc == 0 && c->engine_id_len > 0 && generate_default() == -1)
		return -1;
	if (c->engine_id_len > 0)
		rc = set_exact_engineID(c->engine_id, c->engine_id_len);
	else if (eng_default_len > 0)
		rc = set_exact_engineID(eng_default, eng_default_len);
	else
		rc = SNMPERR_SUCCESS;
	if (rc != SNMPERR_SUCCESS) {
		log_warnx("snmp: cannot set the engine ID");
		return -1;
	}
	return 0;
}

/* Store the generated engine ID on its first start. */
static int
store_default(void)
{
	char text[2 + 2 * GW_ENGINE_ID_MAX + 1];
	u_char eid[SNMP_MAXBUF_SMALL];
	size_t n;

	if (eng_default_stored)
		return 0;
	if (eng_default_len == 0) {
		n = snmpv3_get_engineID(eid, sizeof(eid));
		if (n == 0 || n > GW_ENGINE_ID_MAX) {
			log_warnx("snmp: net-snmp has no engine ID to keep");
			return -1;
		}
		memcpy(eng_default, eid, n);
		eng_default_len = n;
	}
	hex(eng_default, eng_default_len, text, sizeof(text));
	if (store_meta_put_text(ID_KEY, text, 1) == -1)
		return -1;
	eng_default_stored = 1;
	return 0;
}

int
gw_snmp_engine_start(void)
{
	int64_t stored = 0;
	uint32_t b, ns = (uint32_t)snmpv3_local_snmpEngineBoots();
	int rc = store_meta_get_int(BOOTS_KEY, &stored);
	char id[2 + 2 * SNMP_MAXBUF_SMALL + 1];
	u_char eid[SNMP_MAXBUF_SMALL];

	if (rc == 1 && (stored < 1 || stored > GW_SNMP_BOOTS_MAX)) {
		log_warnx("store: meta %s is %lld, not in 1..%lu",
		    BOOTS_KEY, (long long)stored,
		    (unsigned long)GW_SNMP_BOOTS_MAX);
		rc = -1;
	}
	if (rc == -1) {
		log_warnx("snmp: snmpEngineBoots is unknown; not starting, "
		    "as it must never go backwards (RFC 3414 2.2.2): set "
		    "meta %s to the last boots managers saw, or more "
		    "(docs/snmp-engine.md)", BOOTS_KEY);
		return -1;
	}
	/* The last start's plus one, or net-snmp's (one up already) if
	 * higher: an installation older than the meta row. */
	b = gw_snmp_boots_next(rc == 1 ? (uint32_t)stored : 0);
	if (ns > b)
		b = ns > GW_SNMP_BOOTS_MAX ? GW_SNMP_BOOTS_MAX : ns;
	if (persist(b) == -1 || store_default() == -1)
		return -1;
	apply(b);
	hex(eid, snmpv3_get_engineID(eid, sizeof(eid)), id, sizeof(id));
	log_info("snmp: engine ID %s, boots %lu", id, (unsigned long)b);
	return 0;
}

int
gw_snmp_engine_boots_raise(uint32_t seen)
{
	uint32_t local = (uint32_t)snmpv3_local_snmpEngineBoots();
	uint32_t b = gw_snmp_boots_next(seen > local ? seen : local);

	/* On disk first: a value only in memory could be answered and
	 * then lost (RFC 3414 2.2.2). */
	if (persist(b) == -1)
		return -1;
	apply(b);
	log_info("snmp: snmpEngineBoots raised to %lu (local %lu, seen %lu)",
	    (unsigned long)b, (unsigned long)local, (unsigned long)seen);
	return 0;
}

uint32_t
gw_snmp_engine_boots(void)
{
	return (uint32_t)snmpv3_local_snmpEngineBoots();
}
