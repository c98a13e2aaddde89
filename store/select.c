/* store_select: node selectors. */
#include "config.h"

#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>

#include "store/select.h"

void
store_select_free(struct store_select *s)
{
	free(s->glob);
	free(s->regex_src);
	if (s->regex) {
		regfree(s->regex);
		free(s->regex);
	}
	free(s->guids);
}

/* A name condition holds on the alias, if any, or the NodeDescription. */
int
store_select_match(const struct store_select *p, const struct store_node *n)
{
	if (!p->set)
		return 1;
	if (p->type && p->type != n->type)
		return 0;
	if (p->glob && !(n->alias && fnmatch(p->glob, n->alias, 0) == 0) &&
	    fnmatch(p->glob, n->desc, 0) != 0)
		return 0;
	if (p->regex && !(n->alias && regexec(p->regex, n->alias, 0, NULL,
	    0) == 0) && regexec(p->regex, n->desc, 0, NULL, 0) != 0)
		return 0;
	if (p->nguids) {
		int i;
		for (i = 0; i < p->nguids; i++)
			if (p->guids[i] == n->guid)
				break;
		if (i == p->nguids)
			return 0;
	}
	return 1;
}
