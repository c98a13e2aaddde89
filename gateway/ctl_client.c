/* gw_ctl client: `ibsnmpgw ctl ARGS` sends one request line to the
 * control socket (gateway/control.c) and prints the answer. Its exit
 * status is keepalived's track script for ha status (docs/ha.md), so
 * it reads the answer's lines whole, however the reads split them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "gateway/control.h"

/* The reply's lines, whole although a read may end in the middle of
 * one. */
void
gw_ctl_scan(struct gw_ctl_reply *sc, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (sc->len < sizeof(sc->head))
				sc->head[sc->len] = p[i];
			sc->len++;
			continue;
		}
		if (sc->len >= 7 && memcmp(sc->head, "error: ", 7) == 0)
			sc->error = 1;
		if (sc->len == 12 && memcmp(sc->head, "eligible yes", 12) == 0)
			sc->eligible = 1;
		sc->len = 0;
	}
}

int
gw_ctl_client(const char *path, int argc, char **argv)
{
	struct sockaddr_un sun;
	struct gw_ctl_reply sc = { .eligible = 1 };
	char buf[4096], line[GW_CTL_MAX_LINE] = "";
	ssize_t n;
	int s;

	for (int i = 0; i < argc; i++) {
		if (strlen(line) + strlen(argv[i]) + 2 >= sizeof(line)) {
			fprintf(stderr, "ibsnmpgw ctl: command too long\n");
			return 2;
		}
		strcat(line, i ? " " : "");
		strcat(line, argv[i]);
	}
	strcat(line, "\n");
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(s, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "ibsnmpgw ctl: %s: %s\n", path,
		    strerror(errno));
		return 1;
	}
	if (write(s, line, strlen(line)) != (ssize_t)strlen(line)) {
		fprintf(stderr, "ibsnmpgw ctl: write: %s\n", strerror(errno));
		close(s);
		return 1;
	}
	/* ha status: exit 1 unless eligible (keepalived's track_script). */
	if (argc >= 1 && strcmp(argv[0], "ha") == 0 && (argc == 1 ||
	    strcmp(argv[1], "status") == 0))
		sc.eligible = 0;
	while ((n = read(s, buf, sizeof(buf))) > 0) {
		gw_ctl_scan(&sc, buf, (size_t)n);
		fwrite(buf, 1, n, stdout);
	}
	if (n == -1) {
		fprintf(stderr, "ibsnmpgw ctl: read: %s\n", strerror(errno));
		close(s);
		return 1;
	}
	gw_ctl_scan(&sc, "\n", 1);	/* a last line without its newline */
	close(s);
	return sc.error || !sc.eligible;
}
