/* gw_ctl: the local control socket (ibsnmpgw ctl ...). */
#ifndef IBSNMPGW_GW_CONTROL_H
#define IBSNMPGW_GW_CONTROL_H

/* Listen on path (mode 0660: the service user and group only). */
int	gw_ctl_init(const char *path);
void	gw_ctl_finalise(void);
#define GW_CTL_MAX_LINE	512	/* a request line, newline included */

/* Client side (gateway/ctl_client.c): send one command, print the
 * answer. Returns the exit status for main(): 1 if a line of the
 * answer starts "error: " or, for ha status, none reads "eligible
 * yes"; 2 for a command too long. */
int	gw_ctl_client(const char *path, int argc, char **argv);

/* What the client has read of an answer: each line's first octets
 * until its newline. */
struct gw_ctl_reply {
	char	head[16];
	size_t	len;		/* the current line's length so far */
	int	error;		/* a line began "error: " */
	int	eligible;	/* the line "eligible yes" came */
};
void	gw_ctl_scan(struct gw_ctl_reply *sc, const char *p, size_t n);

#endif
