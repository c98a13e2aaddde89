/* conf_secret: the key files read at start and at each reload (the
 * M_Key, the SM_Key, the HA pair's key): owner-only files, read without
 * stdio so no copy stays in a buffer. */
#include "config.h"

#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gateway/conf.h"
#include "gateway/conf_int.h"
#include "store/store.h"

/* A secret's file: refused unless a regular file only its owner may
 * read (mode 0600 or 0400); read() into buf, not stdio, so no copy stays
 * in a stdio buffer. The bytes read, or -1 with the reason on err (the
 * content is never echoed). */
ssize_t
conf_read_secret(const char *path, void *buf, size_t size, FILE *err)
{
	struct stat st;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1 ||
	    fstat(fd, &st) == -1) {
		fprintf(err, "%s:0: cannot open: %s\n", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		fprintf(err, "%s:0: must be a regular file readable only by "
		    "its owner (mode 0600 or 0400)\n", path);
		close(fd);
		return -1;
	}
	if ((n = read(fd, buf, size)) == -1)
		fprintf(err, "%s:0: cannot read: %s\n", path, strerror(errno));
	close(fd);
	return n;
}

int
gw_conf_read_key(const char *path, const char *what, uint64_t *mkey,
    FILE *err)
{
	char buf[64];
	ssize_t n;

	if ((n = conf_read_secret(path, buf, sizeof(buf) - 1, err)) == -1)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, " \t\r\n")] = '\0';
	if (n == 0 || store_parse_guid(buf, strlen(buf), mkey) == -1) {
		fprintf(err, "%s:1: expected one 64-bit %s in hex\n", path,
		    what);
		explicit_bzero(buf, sizeof(buf));
		return -1;
	}
	explicit_bzero(buf, sizeof(buf));
	return 0;
}
