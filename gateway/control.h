/* gw_ctl: the local control socket (ibsnmpgw ctl ...). */
#ifndef IBSNMPGW_GW_CONTROL_H
#define IBSNMPGW_GW_CONTROL_H

/* Listen on path (mode 0660: the service user and group only). */
int	gw_ctl_init(const char *path);
void	gw_ctl_finalise(void);
/* Client side: send one command, print the answer. Returns the exit
 * status for main(). */
int	gw_ctl_client(const char *path, int argc, char **argv);

#endif
