/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* A circular doubly linked list with a head node, as the kernel's API. */
#ifndef LX_SHIM_LINUX_LIST_H
#define LX_SHIM_LINUX_LIST_H

#include <linux/kernel.h>
#include <linux/types.h>

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

/* Insert @n right after @h (at the front when @h is the head). */
static inline void list_add(struct list_head *n, struct list_head *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	list_add(n, h->prev);
}

static inline void list_del(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = NULL;
	e->prev = NULL;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

/* The same, @pos may be removed: @n already points at the next one. */
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, __typeof__(*pos), member),	\
	     n = list_entry(pos->member.next, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n,							\
	     n = list_entry(n->member.next, __typeof__(*n), member))

#endif /* LX_SHIM_LINUX_LIST_H */
