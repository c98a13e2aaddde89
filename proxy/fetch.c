/* proxy_fetch: cache misses become SMPs or PerfMgt MADs. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "proxy/fetch.h"
#include "proxy/mad.h"
#include "proxy/smp.h"
#include "store/store.h"
#include "util/log.h"

struct fetch {
	struct cache_key	key;
	size_t			offs, len;
};

static void
fetch_cb(void *arg, int status, const uint8_t *mad)
{
	struct fetch *f = arg;

	if (status == 0)
		cache_complete(&f->key, 0, mad + f->offs, f->len);
	else {
		if (status == -EIO && mad != NULL) {
			int st = proxy_mad_status(mad);
			log_debug("fetch: node %u attribute 0x%04x/0x%x: MAD "
			    "status 0x%04x", f->key.node, f->key.attr,
			    f->key.mod, st);
			/* IBA 13.4.7 Table 119, bits 4:2: 2 method and 3
			 * method/attribute unsupported; 7 bad field. */
			switch ((st >> 2) & 7) {
			case 2:
			case 3:
				status = -EOPNOTSUPP;
				break;
			case 7:
				status = -EINVAL;
				break;
			}
		}
		cache_complete(&f->key, status, NULL, 0);
	}
	free(f);
}

/* Where to send an SMP for this node: a CA or router answers port
 * attributes (PortInfo, GUIDInfo, P_KeyTable, SL-to-VL, VL arbitration)
 * for the port the SMP arrives through, so key->port selects that port's
 * own route. */
static const struct store_path *
route_for(const struct store_node *n, const struct cache_key *key)
{
	if (n->type != STORE_NODE_SWITCH && key->port >= 1 &&
	    key->port <= n->num_ports &&
	    n->ports[key->port].route.hop[0] != 0xff)
		return &n->ports[key->port].route;
	return &n->route;
}

int
proxy_fetch(const struct cache_key *key, void *arg)
{
	struct store_node *n = store_node_at(key->node);
	struct proxy_mad_args a = { 0 };
	struct fetch *f;

	if (n == NULL)
		return -1;
	if ((f = malloc(sizeof(*f))) == NULL) {
		log_warn("fetch");
		return -1;
	}
	f->key = *key;
	a.node_key = n->guid;
	a.mgmt_class = key->mclass;
	a.method = SMP_METHOD_GET;
	a.attr_id = key->attr;
	a.attr_mod = key->mod;
	if (key->mclass == PROXY_CLASS_SMI_DR) {
		a.target.path = *route_for(n, key);
		f->offs = PROXY_SMP_DATA_OFFS;
		f->len = PROXY_SMP_DATA_SIZE;
	} else {
		a.target.lid = n->lid;
		f->offs = PROXY_GS_DATA_OFFS;
		f->len = PROXY_GS_DATA_SIZE;
	}
	if (proxy_mad_submit(&a, fetch_cb, f) == -1) {
		free(f);
		return -1;
	}
	return 0;
}
