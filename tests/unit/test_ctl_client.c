/* gw_ctl_client: its exit status (keepalived's track script for ha
 * status) comes from whole lines, wherever the reads split the answer:
 * "eligible yes" split over two reads still counts, "eligible no" or a
 * line starting "error: " gives 1, a line that only contains those
 * words does not count. End to end through a unix socket whose server
 * writes its answer in pieces. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/control.h"

#define STATUS_OK	"role active\nname gw1\npeer 10.0.0.2\nprotected\n" \
			"lag 0 frames\neligible yes\naccess 00ff\n"
#define STATUS_NO	"role standby\nname gw2\neligible no: no complete " \
			"snapshot from an active yet\naccess 00ff\n"

static struct gw_ctl_reply
scan_split(const char *text, size_t at, int eligible)
{
	struct gw_ctl_reply sc = { .eligible = eligible };

	gw_ctl_scan(&sc, text, at);
	gw_ctl_scan(&sc, text + at, strlen(text) - at);
	return sc;
}

static void
test_scan_every_split(void **state)
{
	(void)state;
	for (size_t at = 0; at <= strlen(STATUS_OK); at++) {
		struct gw_ctl_reply sc = scan_split(STATUS_OK, at, 0);

		assert_int_equal(sc.eligible, 1);
		assert_int_equal(sc.error, 0);
	}
	for (size_t at = 0; at <= strlen(STATUS_NO); at++) {
		struct gw_ctl_reply sc = scan_split(STATUS_NO, at, 0);

		assert_int_equal(sc.eligible, 0);
		assert_int_equal(sc.error, 0);
	}
}

static void
test_scan_whole_lines_only(void **state)
{
	const char *err = "nodes 2\nerror: no node named 'x'\n";
	struct gw_ctl_reply sc;

	(void)state;
	for (size_t at = 0; at <= strlen(err); at++) {
		sc = scan_split(err, at, 1);
		assert_int_equal(sc.error, 1);
	}
	/* Inside a line, or a longer word: neither counts. */
	sc = scan_split("node x: last error: none\neligible yesterday\n"
	    " eligible yes\n", 9, 0);
	assert_int_equal(sc.error, 0);
	assert_int_equal(sc.eligible, 0);
	/* A last line without its newline counts once the client adds
	 * one. */
	memset(&sc, 0, sizeof(sc));
	gw_ctl_scan(&sc, "role active\neligible yes", 24);
	assert_int_equal(sc.eligible, 0);
	gw_ctl_scan(&sc, "\n", 1);
	assert_int_equal(sc.eligible, 1);
	/* A line longer than what is kept of it. */
	memset(&sc, 0, sizeof(sc));
	char big[300];
	memset(big, 'x', sizeof(big));
	gw_ctl_scan(&sc, big, sizeof(big));
	gw_ctl_scan(&sc, "\neligible yes\n", 14);
	assert_int_equal(sc.eligible, 1);
}

/* A server that takes one request and answers the pieces, each in its
 * own write; the child's exit status says whether the request came. */
static pid_t
serve(const char *path, const char *want, const char *const *pieces)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	assert_true(l >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(l, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(l, 1), 0);
	if ((pid = fork()) == 0) {
		char req[GW_CTL_MAX_LINE] = "";
		size_t len = 0;
		ssize_t n;
		int c = accept(l, NULL, NULL);

		while (c >= 0 && len < sizeof(req) - 1 &&
		    (n = read(c, req + len, sizeof(req) - 1 - len)) > 0)
			if (memchr(req, '\n', len += (size_t)n) != NULL)
				break;
		for (; c >= 0 && *pieces != NULL; pieces++) {
			if (write(c, *pieces, strlen(*pieces)) < 0)
				_exit(3);
			usleep(20000);	/* more likely a read of its own */
		}
		_exit(strcmp(req, want) == 0 ? 0 : 2);
	}
	close(l);
	return pid;
}

static int
client(const char *path, int argc, char **argv)
{
	int out = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	int rc;

	fflush(stdout);
	dup2(null, STDOUT_FILENO);
	rc = gw_ctl_client(path, argc, argv);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	close(out);
	close(null);
	return rc;
}

static void
run(const char *path, char **argv, int argc, const char *want,
    const char *const *pieces, int rc)
{
	int st;
	pid_t pid = serve(path, want, pieces);

	assert_int_equal(client(path, argc, argv), rc);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void
test_client_exit_status(void **state)
{
	char dir[] = "/tmp/ibsnmpgw-ctl-XXXXXX", path[64];
	char *status[] = { "ha", "status" }, *ha[] = { "ha" };
	char *nodes[] = { "nodes" };
	const char *split_ok[] = { "role active\nname gw1\neligi",
	    "ble y", "es\naccess 00\n", NULL };
	const char *no[] = { STATUS_NO, NULL };
	const char *err[] = { "nodes 2\n", "error: the store is busy\n",
	    NULL };
	const char *plain[] = { "nodes 2\n0x1 a\n", "0x2 b\n", NULL };
	const char *nothing[] = { NULL };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ctl.sock", dir);
	run(path, status, 2, "ha status\n", split_ok, 0);
	run(path, ha, 1, "ha\n", split_ok, 0);
	run(path, status, 2, "ha status\n", no, 1);
	/* A gateway that closes without a word is not eligible. */
	run(path, status, 2, "ha status\n", nothing, 1);
	run(path, nodes, 1, "nodes\n", err, 1);
	run(path, nodes, 1, "nodes\n", plain, 0);
	unlink(path);
	/* Nobody listening: 1, and said so on stderr. */
	assert_int_equal(client(path, 2, status), 1);
	rmdir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan_every_split),
		cmocka_unit_test(test_scan_whole_lines_only),
		cmocka_unit_test(test_client_exit_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
