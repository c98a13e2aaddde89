/* ipoib: IPoIB link-layer addresses from the gateway host's own
 * interfaces and ARP table, mapped to inventory ports by GID. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/ipoib.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/htab.h"
#include "util/log.h"

#define ARPHRD_IB	32	/* <linux/if_arp.h> ARPHRD_INFINIBAND */
#define ATF_COMPLETE	0x02	/* <net/if_arp.h> ATF_COM */
#define MAX_ADDRS	65535	/* ibIpoibLinkLayerIndex is 1..65535 */

static char		*ipoib_net_dir, *ipoib_arp_file;
static int		 ipoib_refresh_s;
static struct ev_timer	 ipoib_timer;
static struct ipoib_ent	*ipoib_ents;	/* sorted by node, port, idx */
static size_t		 ipoib_n;
static unsigned		 ipoib_warned;	/* sources whose failure was said */
static int		 ipoib_inited;

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
ipoib_parse_addr(const char *s, uint8_t *out)
{
	for (int i = 0; i < IPOIB_ADDR_LEN; i++) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < IPOIB_ADDR_LEN - 1 && *s++ != ':')
			return -1;
	}
	return *s == '\0' || *s == '\n' ? 0 : -1;
}

/* A growable list of raw addresses. */
struct addrs {
	uint8_t	(*a)[IPOIB_ADDR_LEN];
	size_t	  n, cap;
};

static int
addrs_add(struct addrs *l, const uint8_t *addr)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		void *p = realloc(l->a, cap * sizeof(*l->a));
		if (p == NULL)
			return -1;
		l->a = p;
		l->cap = cap;
	}
	memcpy(l->a[l->n++], addr, IPOIB_ADDR_LEN);
	return 0;
}

/* A source that cannot be read is said once, until it reads again. */
static void
warn_once(unsigned src, const char *path, const char *what)
{
	if (!(ipoib_warned & src))
		log_warnx("ipoib: %s: cannot read (%s); %s are left out", path,
		    strerror(errno), what);
	ipoib_warned |= src;
}

/* The host's own IPoIB interfaces: <net_dir>/<if>/type is 32. */
static void
read_interfaces(struct addrs *l)
{
	DIR *d = opendir(ipoib_net_dir);
	struct dirent *de;

	if (d == NULL) {
		warn_once(1, ipoib_net_dir, "the host's own IPoIB interfaces");
		return;
	}
	ipoib_warned &= ~1u;
	while ((de = readdir(d)) != NULL) {
		char path[4096], line[128];
		uint8_t addr[IPOIB_ADDR_LEN];
		FILE *f;
		int type = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/type", ipoib_net_dir,
		    de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fscanf(f, "%d", &type) != 1)
			type = 0;
		fclose(f);
		if (type != ARPHRD_IB)
			continue;
		snprintf(path, sizeof(path), "%s/%s/address", ipoib_net_dir,
		    de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		if (fgets(line, sizeof(line), f) == NULL ||
		    ipoib_parse_addr(line, addr) == -1)
			log_debug("ipoib: %s: not an IPoIB address", path);
		else if (addrs_add(l, addr) == -1)
			log_warn("ipoib");
		fclose(f);
	}
	closedir(d);
}

/* The ARP table (/proc/net/arp format): complete entries of HW type
 * 0x20. */
static void
read_arp(struct addrs *l)
{
	FILE *f = fopen(ipoib_arp_file, "r");
	char line[512];
	int lineno = 0, bad = 0;

	if (f == NULL) {
		warn_once(2, ipoib_arp_file, "IPoIB neighbours");
		return;
	}
	ipoib_warned &= ~2u;
	while (fgets(line, sizeof(line), f) != NULL) {
		char ip[64], hw[128];
		unsigned type, flags;
		uint8_t addr[IPOIB_ADDR_LEN];

		if (strchr(line, '\n') == NULL && !feof(f)) {
			/* Longer than any ARP entry: skip all of it, so its
			 * tail is not read as a line of its own. */
			int c;
			while ((c = getc(f)) != EOF && c != '\n')
				;
			if (++lineno > 1 && !bad++)
				log_debug("ipoib: %s:%d: line too long",
				    ipoib_arp_file, lineno);
			continue;
		}
		if (++lineno == 1)
			continue;	/* the header */
		if (sscanf(line, "%63s 0x%x 0x%x %127s", ip, &type, &flags,
		    hw) != 4) {
			if (!bad++)
				log_debug("ipoib: %s:%d: not an ARP entry",
				    ipoib_arp_file, lineno);
			continue;
		}
		if (type != ARPHRD_IB || !(flags & ATF_COMPLETE))
			continue;
		if (ipoib_parse_addr(hw, addr) == -1) {
			if (!bad++)
				log_debug("ipoib: %s:%d: bad IPoIB address",
				    ipoib_arp_file, lineno);
			continue;
		}
		if (addrs_add(l, addr) == -1)
			log_warn("ipoib");
	}
	fclose(f);
}

static int
port_cmp(const struct ipoib_ent *x, const struct ipoib_ent *y)
{
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return 0;
}

/* (node, port, address): to find duplicates. */
static int
addr_cmp(const void *a, const void *b)
{
	const struct ipoib_ent *x = a, *y = b;
	int c = port_cmp(x, y);

	return c ? c : memcmp(x->addr, y->addr, IPOIB_ADDR_LEN);
}

/* (node, port, idx): the table's order. */
static int
idx_cmp(const void *a, const void *b)
{
	const struct ipoib_ent *x = a, *y = b;
	int c = port_cmp(x, y);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* The idx an address had at the last refresh, or 0. */
static uint16_t
old_idx(const struct ipoib_ent *e)
{
	const struct ipoib_ent *first;
	size_t n = ipoib_port_addrs(e->node, e->port, &first);

	for (size_t i = 0; i < n; i++)
		if (memcmp(first[i].addr, e->addr, IPOIB_ADDR_LEN) == 0)
			return first[i].idx;
	return 0;
}

/* Indexes for one port's entries [b, e): kept ones first, then the
 * lowest free for new ones; past MAX_ADDRS an entry gets 0 (dropped).
 * With k entries the lowest free index is at most k + 1, so used[]
 * needs k + 2 places. */
static void
assign_port(struct ipoib_ent *b, struct ipoib_ent *e, uint8_t *used)
{
	size_t k = (size_t)(e - b);
	uint32_t next = 1;

	memset(used, 0, k + 2);
	for (struct ipoib_ent *x = b; x < e; x++)
		if ((x->idx = old_idx(x)) != 0 && x->idx <= k + 1)
			used[x->idx] = 1;
	for (struct ipoib_ent *x = b; x < e; x++) {
		if (x->idx != 0)
			continue;
		while (next <= k + 1 && used[next])
			next++;
		if (next > k + 1 || next > MAX_ADDRS)
			break;
		x->idx = (uint16_t)next;
		used[next] = 1;
	}
}

static uint64_t
gid_guid(const uint8_t *addr)
{
	uint64_t g = 0;

	for (int i = 12; i < IPOIB_ADDR_LEN; i++)
		g = g << 8 | addr[i];
	return g;
}

/* Port GUID -> (node, port) for the CA and router ports of the
 * inventory; a switch's port 0 is no interface. */
static int
port_index(struct htab *h)
{
	for (size_t i = 0; i < store_node_count(); i++) {
		const struct store_node *n = store_node_at((uint32_t)i);

		if (n == NULL || n->type == STORE_NODE_SWITCH)
			continue;
		for (int p = 1; p <= n->num_ports; p++)
			if (n->ports[p].guid != 0 && htab_put_u64(h,
			    n->ports[p].guid, (void *)(uintptr_t)(
			    ((uint64_t)n->idx << 8 | (unsigned)p) + 1)) == -1)
				return -1;
	}
	return 0;
}

void
ipoib_refresh(void)
{
	struct addrs l = { NULL, 0, 0 };
	struct ipoib_ent *ents = NULL;
	uint8_t *used = NULL;
	struct htab h;
	size_t n = 0;

	if (ipoib_refresh_s == 0)
		return;
	read_interfaces(&l);
	read_arp(&l);
	htab_init(&h);
	if (l.n && ((ents = calloc(l.n, sizeof(*ents))) == NULL ||
	    port_index(&h) == -1)) {
		log_warn("ipoib: refresh");
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		uintptr_t v = (uintptr_t)htab_get_u64(&h, gid_guid(l.a[i]));
		if (v == 0)
			continue;	/* not a port of this fabric */
		ents[n].node = (uint32_t)((v - 1) >> 8);
		ents[n].port = (uint8_t)(v - 1);
		memcpy(ents[n].addr, l.a[i], IPOIB_ADDR_LEN);
		n++;
	}
	if (n > 1)
		qsort(ents, n, sizeof(*ents), addr_cmp);
	/* The same address from both sources, or twice: one row. */
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (w == 0 || addr_cmp(&ents[w - 1], &ents[i]) != 0)
			ents[w++] = ents[i];
	/* Indexes stay with their address across refreshes, so an OID
	 * keeps naming the same address. */
	if (w > 0 && (used = malloc(w + 2)) == NULL) {
		log_warn("ipoib: refresh");
		goto out;
	}
	for (size_t i = 0, j; i < w; i = j) {
		for (j = i + 1; j < w && port_cmp(&ents[i], &ents[j]) == 0; j++)
			;
		assign_port(&ents[i], &ents[j], used);
	}
	size_t kept = 0;
	for (size_t i = 0; i < w; i++)
		if (ents[i].idx != 0)
			ents[kept++] = ents[i];
	w = kept;
	if (w > 1)
		qsort(ents, w, sizeof(*ents), idx_cmp);
	free(ipoib_ents);
	ipoib_ents = ents;
	ipoib_n = w;
	ents = NULL;
	log_debug("ipoib: %zu addresses read, %zu on fabric ports", l.n, w);
out:
	free(used);
	free(ents);
	htab_free(&h);
	free(l.a);
}

size_t
ipoib_port_addrs(uint32_t node, uint8_t port, const struct ipoib_ent **first)
{
	struct ipoib_ent key = { node, port, 0, { 0 } };
	size_t lo = 0, hi = ipoib_n, k;

	/* Lower bound of (node, port, 0). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (idx_cmp(&ipoib_ents[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < ipoib_n && ipoib_ents[k].node == node &&
	    ipoib_ents[k].port == port && k - lo < MAX_ADDRS; k++)
		;
	*first = k > lo ? &ipoib_ents[lo] : NULL;
	return k - lo;
}

static void
timer_cb(void *arg)
{
	ipoib_refresh();
	if (ipoib_refresh_s > 0)
		ev_timer_add(&ipoib_timer, (uint64_t)ipoib_refresh_s * 1000);
}

int
ipoib_configure(const char *net_dir, const char *arp_file, int refresh)
{
	char *d = strdup(net_dir), *a = strdup(arp_file);

	if (d == NULL || a == NULL) {
		free(d);
		free(a);
		log_warn("ipoib");
		return -1;
	}
	free(ipoib_net_dir);
	free(ipoib_arp_file);
	ipoib_net_dir = d;
	ipoib_arp_file = a;
	ipoib_refresh_s = refresh;
	ipoib_warned = 0;
	ev_timer_del(&ipoib_timer);
	if (refresh == 0) {
		free(ipoib_ents);
		ipoib_ents = NULL;
		ipoib_n = 0;
		return 0;
	}
	ev_timer_add(&ipoib_timer, 0);	/* read now, then every period */
	return 0;
}

int
ipoib_init(const char *net_dir, const char *arp_file, int refresh)
{
	ev_timer_init(&ipoib_timer, timer_cb, NULL);
	ipoib_inited = 1;
	return ipoib_configure(net_dir, arp_file, refresh);
}

void
ipoib_finalise(void)
{
	if (!ipoib_inited)
		return;
	ipoib_inited = 0;
	ev_timer_del(&ipoib_timer);
	free(ipoib_ents);
	free(ipoib_net_dir);
	free(ipoib_arp_file);
	ipoib_ents = NULL;
	ipoib_net_dir = ipoib_arp_file = NULL;
	ipoib_n = 0;
}
