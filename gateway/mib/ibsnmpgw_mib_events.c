/* IBSNMPGW-MIB ibsnmpgwEventTable (fabric context: the event stream's
 * history, store/events.h) and ibsnmpgwTargetTable (gateway context:
 * the notifier's targets, gateway/notify.h). No MADs. */
#include "config.h"

#include <string.h>

#include "gateway/mib.h"
#include "gateway/oids.h"
#include "gateway/notify.h"
#include "store/events.h"

/* ---- ibsnmpgwEventTable: index = sequence number (low 32 bits) */

/* The kept event with the lowest seq >= want, from position *at. */
static const struct store_event *
event_from(uint64_t want, size_t *at)
{
	size_t lo = 0, hi = store_event_count();

	while (lo < hi) {	/* oldest first: seqs ascend */
		size_t mid = lo + (hi - lo) / 2;

		if (store_event_at(mid)->seq < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < store_event_count() ? store_event_at(lo) : NULL;
}

static int
event_visible(struct gw_eval *e, const struct store_event *ev)
{
	const struct store_node *n;

	if (ev->node_guid == 0)
		return 1;
	n = store_node_by_guid(ev->node_guid);
	return n != NULL ? gw_visible(e, n) : gw_visible_all(e);
}

static int
event_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	uint64_t want = (uint64_t)lb->i[0] + (incl ? 0 : 1);
	size_t at;
	const struct store_event *ev;

	for (ev = event_from(want, &at); ev != NULL && ev->seq <= 0xffffffffu;
	    ev = ++at < store_event_count() ? store_event_at(at) : NULL)
		if (event_visible(e, ev)) {
			memset(out, 0, sizeof(*out));
			out->i[0] = (uint32_t)ev->seq;
			return 1;
		}
	return 0;
}

static const struct store_event *
row_event(const struct gw_row *row)
{
	return store_event_by_seq(row->i[0]);
}

static int
ev_col(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	const struct store_event *ev = row_event(row);
	const struct store_node *n;
	char ctx[GW_CONTEXT_LEN];
	int64_t s;

	if (ev == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 2:
		s = ev->when / 1000;
		return gw_val_uint(v, s > 0 && s <= 0xffffffffLL ?
		    (unsigned long)s : 0);
	case 3:
		return gw_val_guid(v, ev->node_guid);
	case 4:
		n = ev->node_guid ? store_node_by_guid(ev->node_guid) : NULL;
		ctx[0] = '\0';
		if (n != NULL)
			gw_context_name(n, ctx, sizeof(ctx));
		return gw_val_octets(v, ctx, strlen(ctx));
	case 5:
		return gw_val_uint(v, ev->port);
	case 6:
		return gw_val_int_in(v, ev->type, 1, STORE_EV_MAX - 1);
	case 7:
		return gw_val_int_in(v, ev->source, STORE_SRC_SM,
		    STORE_SRC_GATEWAY);
	case 8:
		return gw_val_octets(v, ev->text, strnlen(ev->text,
		    sizeof(ev->text)));
	case 9:
		return gw_val_gauge(v, ev->suppressed);
	case 10:
		return gw_val_uint(v, ev->lid);
	default:
		return gw_val_uint(v, ev->trap);
	}
}

#define EVC(nm)	GW_GETA(nm, ev_col, GW_ARC_##nm)

static const struct gw_col event_cols[] = {
	EVC(ibsnmpgwEventTime),
	EVC(ibsnmpgwEventNodeGuid),
	EVC(ibsnmpgwEventNodeContext),
	EVC(ibsnmpgwEventPort),
	EVC(ibsnmpgwEventType),
	EVC(ibsnmpgwEventSource),
	EVC(ibsnmpgwEventText),
	EVC(ibsnmpgwEventSuppressed),
	EVC(ibsnmpgwEventLid),
	EVC(ibsnmpgwEventTrapNumber),
};

static const struct gw_table event_table = {
	.name = "ibsnmpgwEventTable",
	.GW_OID(GW_OID_ibsnmpgwEventEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(event_cols),
	.row_next = event_rows,
	.context = GW_FABRIC_CONTEXT,
};

/* ---- ibsnmpgwTargetTable: index = place in the configuration + 1 */

static int
target_rows(struct gw_eval *e, const struct gw_row *lb, int incl,
    struct gw_row *out)
{
	(void)e;
	if (gw_notify_count() == 0)
		return 0;
	return gw_row_range(lb, incl, 1, (uint32_t)gw_notify_count(), out);
}

static int
tg_col(struct gw_eval *e, const struct gw_row *row, struct gw_val *v)
{
	struct gw_notify_stats st;
	const struct gw_target *t = row->i[0] ?
	    gw_notify_target(row->i[0] - 1, &st) : NULL;

	if (t == NULL)
		return GW_ABSENT;
	switch (gw_column(e)->arg) {
	case 2:
		return gw_val_octets(v, t->name, strlen(t->name));
	case 3:
		return gw_val_int(v, (t->version == 3 ? 3 : 1) +
		    (t->inform ? 1 : 0));
	case 4:
		return gw_val_counter64(v, st.sent);
	case 5:
		return gw_val_counter64(v, st.acked);
	case 6:
		return gw_val_counter64(v, st.failed);
	case 7:
		return gw_val_counter64(v, st.retried);
	case 8:
		return gw_val_counter64(v, st.dropped);
	default:
		return gw_val_gauge(v, st.queued);
	}
}

#define TGC(nm)	GW_GETA(nm, tg_col, GW_ARC_##nm)

static const struct gw_col target_cols[] = {
	TGC(ibsnmpgwTargetName),
	TGC(ibsnmpgwTargetType),
	TGC(ibsnmpgwTargetSent),
	TGC(ibsnmpgwTargetAcknowledged),
	TGC(ibsnmpgwTargetFailed),
	TGC(ibsnmpgwTargetRetried),
	TGC(ibsnmpgwTargetDropped),
	TGC(ibsnmpgwTargetQueued),
};

static const struct gw_table target_table = {
	.name = "ibsnmpgwTargetTable",
	.GW_OID(GW_OID_ibsnmpgwTargetEntry),
	.under_sys_base = 1,
	.nindex = 1,
	.GW_COLS(target_cols),
	.row_next = target_rows,
	.context = "",
};

static const struct gw_table *const tables[] = {
	&event_table, &target_table, NULL
};

const struct gw_mib_module gw_mod_ibsnmpgw_mib_events = {
	.name = "IBSNMPGW-MIB events",
	.tables = tables,
};
