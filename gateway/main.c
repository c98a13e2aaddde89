/* ibsnmpgw: SNMP gateway to an InfiniBand fabric.
 *
 * Modules start in dependency order and stop in reverse (chrony
 * style): log, conf, ev, store, cache, mad, snmp + mib, discover. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gateway/conf.h"
#include "gateway/control.h"
#include "gateway/ha.h"
#include "gateway/mib.h"
#include "gateway/notify.h"
#include "gateway/snmp.h"
#include "gateway/subnet.h"
#include "gateway/subnet_ha.h"
#include "proxy/discover.h"
#include "proxy/fetch.h"
#include "proxy/health.h"
#include "proxy/inform.h"
#include "proxy/linkcheck.h"
#include "proxy/mad.h"
#include "proxy/poller.h"
#include "proxy/reread.h"
#include "proxy/watch.h"
#include "proxy/sa.h"
#include "proxy/tunnel.h"
#include "proxy/verdict.h"
#include "store/cache.h"
#include "store/counters.h"
#include "store/events.h"
#include "store/ipoib.h"
#include "store/schema.h"
#include "store/store.h"
#include "util/ev.h"
#include "util/log.h"

#define DEFAULT_CONF	SYSCONFDIR "/ibsnmpgw/ibsnmpgw.yaml"

static int sig_pipe[2] = { -1, -1 };
static struct gw_conf *gw_running;	/* the configuration in force */
static const char *gw_conf_path;
static int gw_debug;		/* -d: further subnets' processes too */

/* Lines a parser wrote to a memory stream, to the log. */
static void
log_lines(char *buf)
{
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		log_warnx("%s", l);
}

/* The key files (M_Key, IBA 14.2.4; the SA's SM_Key, 15.2.1.1), read
 * at start and on every reload: their errors go to the log and the keys
 * themselves nowhere. A key without a file is 0. */
struct keys {
	uint64_t	mkey, sa_key;
};

static int
read_key(const char *path, const char *what, uint64_t *key)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *err;
	int rc;

	*key = 0;
	if (path == NULL)
		return 0;
	if ((err = open_memstream(&buf, &len)) == NULL) {
		log_warn("%s", what);
		return -1;
	}
	rc = gw_conf_read_key(path, what, key, err);
	fclose(err);
	if (rc == -1)
		log_lines(buf);
	free(buf);
	return rc;
}

static int
read_keys(const struct gw_conf *c, struct keys *k)
{
	if (read_key(c->mkey_file, "M_Key", &k->mkey) == -1 ||
	    read_key(c->sa_key_file, "SM_Key", &k->sa_key) == -1) {
		explicit_bzero(k, sizeof(*k));
		return -1;
	}
	return 0;
}

static void
apply_keys(const struct gw_conf *c, struct keys *k)
{
	int sa_changed = !proxy_mad_sa_key_is(k->sa_key);

	/* Verdicts and holds made with the old key mean nothing now. */
	if (!proxy_mad_mkey_is(k->mkey))
		proxy_health_reset();
	proxy_mad_set_mkey(k->mkey);
	proxy_mad_set_sa_key(k->sa_key);
	explicit_bzero(k, sizeof(*k));
	if (c->mkey_file)
		log_info("mad: SMPs carry the M_Key from %s", c->mkey_file);
	if (c->sa_key_file)
		log_info("mad: SA queries carry the SM_Key from %s",
		    c->sa_key_file);
	/* What the SA shows depends on the key: ask again. */
	if (sa_changed)
		for (int kind = 0; kind < STORE_SA_MAX; kind++)
			proxy_sa_refresh((enum store_sa_kind)kind);
}

/* RFC 3418 coldStart: the notification originator (re)starts; its
 * configuration may have changed since it last ran. A reload sends
 * nothing (docs/events.md). */
static void
post_start(void)
{
	struct store_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = STORE_EV_GW_START;
	ev.source = STORE_SRC_GATEWAY;
	snprintf(ev.text, sizeof(ev.text), "ibsnmpgw %s started",
	    PACKAGE_VERSION);
	store_event_post(&ev);
}

/* The discovery section, for proxy/discover.h (start-up and reload). */
static const struct proxy_sweep_conf *
sweep_conf(const struct gw_conf *c)
{
	static struct proxy_sweep_conf sc;

	sc.interval = c->sweep_interval;
	sc.safety = c->sweep_safety;
	sc.event_ms = c->sweep_event_ms;
	sc.event_gap = c->sweep_event_gap;
	return &sc;
}

/* The ha: section's part of a reload: its errors logged. */
static int
ha_prepare(const struct gw_conf *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	int rc;

	if (err == NULL) {
		log_warn("reload: ha");
		return -1;
	}
	rc = gw_ha_reload_prepare(c, err);
	fclose(err);
	if (rc == -1)
		log_lines(buf);
	free(buf);
	return rc;
}

/* The file as the process of subnet reads it (-s NAME: a further
 * subnet's, with its own store, socket and state; NULL: the first's),
 * or NULL with the errors on err. */
static struct gw_conf *
conf_for(const char *path, const char *subnet, FILE *err)
{
	struct gw_conf *c = gw_conf_load(path, err);

	if (c != NULL && subnet != NULL &&
	    gw_conf_subnet_child(c, subnet, err) == -1) {
		gw_conf_free(c);
		c = NULL;
	}
	return c;
}

/* SIGHUP: load the file again; a bad file leaves everything as it was
 * and its errors are logged as file:line. Whatever can fail comes
 * first; new listeners open before anything else is applied. */
static void
reload(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	struct gw_conf *c;
	struct keys keys;

	if (err == NULL) {
		log_warn("reload");
		return;
	}
	/* A further subnet's process reads it as at its start: its own
	 * port, store and link, not the first process's listeners. */
	c = conf_for(gw_conf_path, gw_running->subnet_child != NULL ?
	    gw_subnet_self() : NULL, err);
	fclose(err);
	if (c == NULL) {
		log_lines(buf);
		log_warnx("reload: %s has errors; the running configuration "
		    "stays", gw_conf_path);
		free(buf);
		return;
	}
	free(buf);
	if (gw_snmp_listeners_prepare(c) == -1)
		goto fail;
	if (ha_prepare(c) == -1) {
		gw_snmp_listeners_abort();
		goto fail;
	}
	if (read_keys(c, &keys) == -1 ||
	    proxy_poll_set_policies(c->policies, c->npolicies) == -1) {
		gw_snmp_listeners_abort();
		gw_ha_reload_abort();
		goto fail;
	}
	gw_snmp_listeners_commit(c);
	gw_ha_reload_commit();
	apply_keys(c, &keys);
	if (store_event_config(&c->events) == -1)
		log_warnx("reload: events: no memory for a history of %u; "
		    "the one in force stays", c->events.history);
	if (c->node_name_map) {
		if (store_load_name_map(c->node_name_map) == -1)
			log_warnx("reload: node-name-map %s not loaded; the "
			    "aliases in force stay", c->node_name_map);
		else
			proxy_poll_inventory_changed();	/* name selectors */
	}
	gw_snmp_set_access(c);
	gw_snmp_reload_users(gw_running, c);
	proxy_mad_set_rate(c->mad_rate);
	proxy_health_set_hold(c->mad_hold_down);
	proxy_linkcheck_configure(c->expect, c->nexpect);
	proxy_verdict_config(&c->health_ports);
	gw_mib_configure(c);
	proxy_discover_configure(sweep_conf(c));
	gw_notify_config(c);
	proxy_mad_set_issm(c->sim_issm);
	proxy_inform_set(c->sm_events);
	proxy_inform_set_master_check((unsigned)c->master_check_ms);
	proxy_tun_set_conf(&c->tunnel);
	ipoib_configure(c->ipoib_net_dir, c->ipoib_arp_file, c->ipoib_refresh);
	for (int i = 0; i < ATTR_TTL_MAX; i++)
		cache_set_ttl(i, c->ttl[i]);
	gw_ha_set_conf(c);
	gw_subnet_reload(c);
	gw_conf_free(gw_running);
	gw_running = c;
	log_info("reload: %s: %d polling policies", gw_conf_path,
	    c->npolicies);
	return;
fail:
	log_warnx("reload: %s not applied; the running configuration stays",
	    gw_conf_path);
	gw_conf_free(c);
}

/* The nodes' hold-downs and the fabric health checks (docs/health.md),
 * which read the event history back at start. */
static void
health_init(const struct gw_conf *c)
{
	proxy_health_init(c->mad_hold_down);
	proxy_linkcheck_init(c->expect, c->nexpect);
	proxy_verdict_init(&c->health_ports);
}

static void
health_finalise(void)
{
	proxy_linkcheck_finalise();
	proxy_verdict_finalise();
	proxy_health_finalise();
}

static int	 cap_fd = -1;	/* captured stderr (log_capture_stderr) */

static void
stderr_cb(int fd, short revents, void *arg)
{
	if (log_drain_stderr() == -1) {
		ev_fd_del(cap_fd);
		log_release_stderr();
		cap_fd = -1;
	}
}

/* While SM events flow, in place of a sweep: the master SM's LID as
 * our own port has it, the SA's records, and whether the subscription
 * still stands there (another master: proxy/inform.c subscribes
 * again, then one sweep). */
static void
master_read(void *arg)
{
	for (int k = 0; k < STORE_SA_MAX; k++)
		proxy_sa_refresh((enum store_sa_kind)k);
	proxy_inform_check();
}

static void
light_check(void *arg)
{
	/* Our port's MasterSMLID first: the SA and the subscription are
	 * where it says. */
	if (proxy_sa_check_master(master_read, NULL) == -1)
		master_read(NULL);
}

/* The inventory changed: by a sweep, or by a Report followed without
 * one (proxy/reread.c). */
static void
inventory_changed(void *arg)
{
	proxy_poll_inventory_changed();
	proxy_linkcheck_run();
	gw_mib_swept();		/* LLDP-MIB counts the links that changed */
	ipoib_refresh();	/* new ports may own known addresses */
}

static void
sweep_done(void *arg)
{
	inventory_changed(arg);
	/* The SA's records as of this sweep too, so the first walk of
	 * the fabric context finds them (two MADs per sweep). */
	for (int k = 0; k < STORE_SA_MAX; k++)
		proxy_sa_refresh((enum store_sa_kind)k);
	proxy_inform_check();	/* one GetTable: still subscribed? */
}

/* The local port is back: sweep at once, so the inventory is
 * confirmed (or corrected) rather than waiting for the next period. */
static void
port_up(void *arg)
{
	proxy_discover_start();
}

static void
usage(void)
{
	fprintf(stderr, "usage: ibsnmpgw [-fndV] [-c file] [-D tokens] "
	    "[-s subnet]\n"
	    "       ibsnmpgw [-c file] [-s subnet] ctl nodes|node NAME|sweep|"
	    "flush "
	    "[NAME]|stats|events [COUNT]|targets|links --degraded|\n"
	    "           ha master|backup|yield|fault|status|\n"
	    "           topology pin|diff|show|slurm|congestion [NAME]|\n"
	    "           ports --unhealthy\n"
	    "       ibsnmpgw [-c file] [-s subnet] schema [RELEASE]\n"
	    "  -c file  configuration (default %s)\n"
	    "  -n       check the configuration and exit\n"
	    "  -f       stay in the foreground, log to stderr\n"
	    "  -d       debug logging\n"
	    "  -D tok   also net-snmp debug tokens (e.g. snmp_agent,usm)\n"
	    "  -s name  a further subnet of ib.ports: serve it (started so by\n"
	    "           the first process), or talk to its process (ctl)\n"
	    "  -V       print the version\n", DEFAULT_CONF);
	exit(2);
}

static const char *
or_dash(const char *s)
{
	return s[0] != '\0' ? s : "-";
}

static const char *
utc(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t == 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* What the database says about itself, one "key value" line each: a
 * stable interface, which the packages' maintainer scripts read. */
static void
schema_print(const char *path, const struct store_info *si)
{
	char t1[32], t2[32];

	printf("database %s\nschema %d\nrelease %s\nopened %s\n"
	    "previous-release %s\n", path, si->schema, or_dash(si->release),
	    utc(si->opened, t1, sizeof(t1)), or_dash(si->previous));
	if (si->migrated_from > 0)
		printf("migrated-from %d\nmigrated %s\n", si->migrated_from,
		    utc(si->migrated, t2, sizeof(t2)));
	else
		printf("migrated-from -\nmigrated -\n");
	printf("backup %s\nsupported %d\n", or_dash(si->backup),
	    STORE_SCHEMA_VERSION);
}

/* ibsnmpgw schema [RELEASE]: the database read without changing it;
 * with RELEASE, whether that release can open it. Exit 0: it can (or
 * there is no database), 1: it would refuse it, 2: cannot tell. The
 * packages ask this before a downgrade (docs/upgrades.md). */
static int
schema_cmd(const struct gw_conf *c, const char *rel)
{
	struct store_info si;
	char by[64];
	int reads;

	if (store_schema_inspect(c->store_path, &si) == -1)
		return 2;
	if (rel == NULL) {
		schema_print(c->store_path, &si);
		return 0;
	}
	reads = store_schema_of_release(rel);
	if (reads == 0) {
		fprintf(stderr, "ibsnmpgw: %s is older than any release\n",
		    rel);
		return 2;
	}
	if (reads == -1) {
		printf("ibsnmpgw %s is newer than %s and reads schema %d or "
		    "later: it can open %s (schema %d)\n", rel,
		    PACKAGE_VERSION, STORE_SCHEMA_VERSION, c->store_path,
		    si.schema);
		return 0;
	}
	if (si.schema <= reads) {
		printf("ibsnmpgw %s can open %s (schema %d)\n", rel,
		    c->store_path, si.schema);
		return 0;
	}
	if (si.release[0] == '\0')
		store_schema_releases(si.schema, by, sizeof(by));
	fprintf(stderr, "ibsnmpgw: %s has schema %d (last opened by "
	    "ibsnmpgw %s); ibsnmpgw %s reads schema %d at most and would "
	    "refuse it\n", c->store_path, si.schema, si.release[0] ?
	    si.release : by, rel, reads);
	if (si.migrated_from > 0 && si.migrated_from <= reads &&
	    si.backup[0] != '\0')
		fprintf(stderr, "ibsnmpgw: the copy taken before the migration "
		    "from schema %d is %s\n", si.migrated_from, si.backup);
	return 1;
}

static void
on_signal(int sig)
{
	int saved = errno;
	unsigned char c = sig;

	/* A full pipe means a signal is already pending: fine. */
	(void)!write(sig_pipe[1], &c, 1);
	errno = saved;
}

static void
signal_cb(int fd, short revents, void *arg)
{
	unsigned char sig;

	while (read(fd, &sig, 1) == 1) {
		switch (sig) {
		case SIGHUP:
			log_info("SIGHUP: reloading %s", gw_conf_path);
			reload();
			break;
		case SIGUSR1:
			if (proxy_discover_start() == 0)
				log_info("SIGUSR1: sweep started");
			else if (proxy_discover_running())
				log_info("SIGUSR1: a sweep is already running");
			else if (!proxy_mad_port_up())
				log_info("SIGUSR1: the local port is down; a "
				    "sweep starts when it is back");
			break;
		case SIGUSR2:
			if (proxy_poll_all_now() == 0)
				log_info("SIGUSR2: full poll started");
			break;
		case SIGTERM:
		case SIGINT:
			log_info("signal %d: shutting down", sig);
			ev_break();
			break;
		case SIGCHLD:
			gw_subnet_reap();
			break;
		}
	}
}

/* How long the stop waits for the SM to take the unsubscriptions. */
#define LEAVE_MS	1000

static void
left(void *arg)
{
	(void)arg;
	ev_break();
}

static void
leave_late(void *arg)
{
	(void)arg;
	log_warnx("inform: the SM did not answer the unsubscriptions in "
	    "%d ms", LEAVE_MS);
	ev_break();
}

/* Before the port closes, the SM is told to send no more Reports: the
 * loop runs on, everything else as before, until it has answered. */
static void
leave(void)
{
	struct ev_timer t;

	if (proxy_inform_leave(left, NULL) == 0)
		return;		/* left() is never called from it */
	ev_timer_init(&t, leave_late, NULL);
	ev_timer_add(&t, LEAVE_MS);
	ev_run();
	ev_timer_del(&t);
}

static int
signals_init(void)
{
	struct sigaction sa;

	if (pipe(sig_pipe) == -1) {
		log_warn("pipe");
		return -1;
	}
	/* The self-pipe is an ordinary descriptor, never the umad one. */
	for (int i = 0; i < 2; i++)
		fcntl(sig_pipe[i], F_SETFL, O_NONBLOCK);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return ev_fd_add(sig_pipe[0], POLLIN, signal_cb, NULL);
}

/* `ibsnmpgw ctl ...`: the control socket's client. */
static int
ctl_main(const char *path, const char *subnet, int argc, char **argv)
{
	struct gw_conf *c;
	int rc;

	if (argc < 1)
		usage();
	if ((c = conf_for(path, subnet, stderr)) == NULL)
		return 1;
	rc = gw_ctl_client(c->control_socket, argc, argv);
	gw_conf_free(c);
	return rc;
}

/* `ibsnmpgw schema [RELEASE]`: the database's schema, read only. */
static int
schema_main(const char *path, const char *subnet, int argc, char **argv)
{
	struct gw_conf *c;
	int rc;

	if (argc > 2)
		usage();
	if ((c = conf_for(path, subnet, stderr)) == NULL)
		return 2;
	rc = schema_cmd(c, argv[1]);
	gw_conf_free(c);
	return rc;
}

/* -n: the key files must be readable too. */
static int
check_keys(const struct gw_conf *c)
{
	uint8_t hk[GW_HA_KEY_MAX];
	uint64_t k;

	if ((c->mkey_file && gw_conf_read_key(c->mkey_file, "M_Key", &k,
	    stderr)) || (c->sa_key_file && gw_conf_read_key(c->sa_key_file,
	    "SM_Key", &k, stderr)))
		return 1;
	explicit_bzero(&k, sizeof(k));
	if (c->ha.enabled && gw_conf_read_ha_key(c->ha.key_file, hk, stderr)
	    == -1)
		return 1;
	explicit_bzero(hk, sizeof(hk));
	printf("configuration ok\n");
	return 0;
}

/* From here on, what libraries print on stderr is logged. */
static void
capture_stderr(void)
{
	if ((cap_fd = log_capture_stderr()) >= 0 &&
	    ev_fd_add(cap_fd, POLLIN, stderr_cb, NULL) == -1) {
		log_warnx("stderr of libraries is not drained into the log");
		log_release_stderr();
		cap_fd = -1;
	}
}

static int	run(struct gw_conf *c);

int
main(int argc, char **argv)
{
	const char *path = DEFAULT_CONF, *subnet = NULL;
	int foreground = 0, check = 0, debug = 0, ch, rc, devnull;
	static char ident[32] = "ibsnmpgw";
	struct gw_conf *c;

	/* Started with fd 0, 1 or 2 closed, the next open() (syslog's
	 * socket, the database) would become "stderr". */
	while ((devnull = open("/dev/null", O_RDWR)) >= 0 && devnull <= 2)
		;
	if (devnull > 2)
		close(devnull);
	/* '+': options end at the command (ctl links --degraded). */
	while ((ch = getopt(argc, argv, "+c:fndD:s:V")) != -1) {
		switch (ch) {
		case 'c': path = optarg; break;
		case 's': subnet = optarg; break;
		case 'f': foreground = 1; break;
		case 'n': check = 1; break;
		case 'd': debug = 1; break;
		case 'D':
			debug = 1;
			debug_register_tokens(optarg);
			snmp_set_do_debugging(1);
			break;
		case 'V': printf("ibsnmpgw %s\n", PACKAGE_VERSION); return 0;
		default: usage();
		}
	}
	if (optind < argc && strcmp(argv[optind], "ctl") == 0)
		return ctl_main(path, subnet, argc - optind - 1,
		    argv + optind + 1);
	if (optind < argc && strcmp(argv[optind], "schema") == 0)
		return schema_main(path, subnet, argc - optind,
		    argv + optind);
	if (optind != argc)
		usage();

	if (subnet != NULL) {	/* what the first process left open */
		closefrom(GW_SUBNET_CTL_FD + 1);
		if (gw_subnet_child_guard() == -1) {
			fprintf(stderr, "ibsnmpgw -s %s: the first process is "
			    "gone\n", subnet);
			return 1;
		}
	}
	if ((c = conf_for(path, subnet, stderr)) == NULL)
		return 1;
	if (subnet != NULL) {
		snprintf(ident, sizeof(ident), "ibsnmpgw-%s", subnet);
		gw_subnet_set_self(subnet);
		if (mkdir(c->state_dir, 0700) == -1 && errno != EEXIST) {
			fprintf(stderr, "%s: %s\n", c->state_dir,
			    strerror(errno));
			gw_conf_free(c);
			return 1;
		}
	}
	gw_running = c;
	gw_conf_path = path;
	gw_debug = debug;
	if (check) {
		rc = check_keys(c);
		gw_conf_free(c);
		return rc;
	}
	log_init(ident, foreground, debug ? LOG_DEBUG :
	    c->log_level ? log_level_from_name(c->log_level) : LOG_INFO);
	log_info("ibsnmpgw %s starting", PACKAGE_VERSION);

	return run(c);
}

static const struct gw_ha_subnets ha_subnets = { gw_subnet_ha_role,
    gw_subnet_ha_status };
static const struct gw_subnet_ha_pair subnet_pair = { gw_ha_ctl,
    gw_ha_resume, gw_ha_status };

/* What follows the fabric (SA, SM events, rereads, tunnels) and the
 * hooks between the modules, none of which can fail. */
static void
fabric_init(const struct gw_conf *c)
{
	proxy_sa_init();
	proxy_inform_init(c->sm_events);
	proxy_inform_set_master_check((unsigned)c->master_check_ms);
	proxy_reread_init();
	proxy_watch_init(proxy_reread_check);
	proxy_reread_on_changed(inventory_changed, NULL);
	proxy_tun_init(&c->tunnel);
	proxy_discover_on_done(sweep_done, NULL);
	proxy_discover_on_check(light_check, NULL);
	proxy_mad_on_port_up(port_up, NULL);
	/* Several subnets in a pair: ha.c and subnet_ha.c see each other
	 * only through what is handed here (docs/subnets.md). */
	gw_subnet_ha_set_pair(&subnet_pair);
	if (c->nsubnets > 1 && c->subnet_child == NULL)
		gw_ha_set_subnets(&ha_subnets);
}

/* The daemon: every module started in order, the event loop, and every
 * module stopped in the reverse order (a failed start unwinds from
 * where it stopped). */
static int
run(struct gw_conf *c)
{
	struct keys keys;
	int rc = 1;

	ev_init();
	capture_stderr();
	for (int i = 0; i < ATTR_TTL_MAX; i++)
		cache_set_ttl(i, c->ttl[i]);
	if (store_init(c->store_path) == -1)
		goto out_ev;
	if (store_event_init(&c->events) == -1 || (c->node_name_map &&
	    store_load_name_map(c->node_name_map) == -1))
		goto out_store;
	cache_init(proxy_fetch, NULL);
	if (counters_init() == -1 || ipoib_init(c->ipoib_net_dir,
	    c->ipoib_arp_file, c->ipoib_refresh) == -1)
		goto out_cache;
	health_init(c);
	proxy_mad_set_issm(c->sim_issm);
	if (proxy_mad_init(c->ib_ca, c->ib_port, c->mad_timeout_ms,
	    c->mad_retries, c->mad_max_inflight,
	    c->mad_max_inflight_node) == -1)
		goto out_cache;
	proxy_mad_set_rate(c->mad_rate);
	if (read_keys(c, &keys) == -1)
		goto out_cache;
	apply_keys(c, &keys);
	/* A pair starts standby: before any listener or inform. */
	if (gw_ha_init(c) == -1)
		goto out_cache;
	if (gw_snmp_init(c) == -1 || gw_mib_init(c) == -1 ||
	    gw_snmp_start(c) == -1)
		goto out_snmp;
	if (signals_init() == -1 ||
	    proxy_poll_init(c->policies, c->npolicies) == -1 ||
	    proxy_discover_init(sweep_conf(c)) == -1)
		goto out_snmp;
	fabric_init(c);
	if (gw_ctl_init(c->control_socket) == -1)
		goto out_poll;
	if (gw_notify_init(c) == -1 || gw_ha_start() == -1 ||
	    gw_subnet_init(c, gw_conf_path, gw_debug) == -1)
		goto out_poll;
	post_start();

	log_info("ready");
	ev_run();
	rc = 0;
	leave();
	proxy_mad_exiting();

out_poll:
	/* MADs in flight or queued fail first (their callbacks run while
	 * their owners exist), then each module once, in reverse order. */
	proxy_mad_stop();
	gw_subnet_finalise();
	gw_ha_set_subnets(NULL);
	gw_subnet_ha_set_pair(NULL);
	gw_ha_stop();
	gw_notify_finalise();
	gw_ctl_finalise();
	proxy_tun_finalise();
	proxy_watch_finalise();
	proxy_reread_finalise();
	proxy_inform_finalise();
	proxy_sa_finalise();
out_snmp:
	proxy_discover_finalise();
	proxy_poll_finalise();
	netsnmp_check_outstanding_agent_requests();
	gw_mib_finalise();
	gw_snmp_finalise();
	gw_ha_finalise();
out_cache:
	proxy_mad_finalise();
	health_finalise();
	ipoib_finalise();
	counters_finalise();
	cache_finalise();
out_store:
	store_event_finalise();
	store_sa_finalise();
	store_finalise();
out_ev:
	if (cap_fd >= 0) {
		log_drain_stderr();
		ev_fd_del(cap_fd);
	}
	ev_finalise();
	log_info("stopped");
	log_finalise();
	gw_conf_free(gw_running);
	return rc;
}
