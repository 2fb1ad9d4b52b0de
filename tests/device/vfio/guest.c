// SPDX-License-Identifier: MIT OR GPL-2.0-only
/*
 * guest.c - helpers for the guest test programs (see guest.h).
 *
 * /dev/kmsg hands out one record per read() ("pri,seq,usec,flags;text\n"),
 * EAGAIN at the end when opened O_NONBLOCK, and EPIPE when the record we
 * were about to read was overwritten (then the next read continues).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

const char *guest_errname(int err)
{
	switch (err < 0 ? -err : err) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOTSUP: return "ENOTSUP";
	case EAGAIN: return "EAGAIN";
	case EOVERFLOW: return "EOVERFLOW";
	default: return "other";
	}
}

static void nap_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int guest_kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Next record's text into @buf: its length, 0 at the end, or -errno. */
static ssize_t next_record(int fd, char *buf, size_t len, const char **text)
{
	ssize_t n;

	for (;;) {
		n = read(fd, buf, len - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten: go on with the next */
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		buf[n] = '\0';
		*text = strchr(buf, ';');
		*text = *text ? *text + 1 : buf;
		return n;
	}
}

int guest_kmsg_find(int fd, const char *a, const char *b, char *line,
		    size_t len, unsigned int timeout_ms)
{
	char buf[1024];
	const char *text;
	unsigned int waited = 0;
	ssize_t n;
	size_t k;

	for (;;) {
		while ((n = next_record(fd, buf, sizeof(buf), &text)) > 0) {
			if (!strstr(text, a) || (b && !strstr(text, b)))
				continue;
			k = strcspn(text, "\n");
			if (k >= len)
				k = len - 1;
			memcpy(line, text, k);
			line[k] = '\0';
			return 0;
		}
		if (n < 0)
			return (int)n;
		if (waited >= timeout_ms)
			return -ENOENT;
		nap_ms(50);
		waited += 50;
	}
}

int guest_kmsg_count(const char *a)
{
	char buf[1024];
	const char *text;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), count = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = next_record(fd, buf, sizeof(buf), &text)) > 0)
		if (strstr(text, a))
			count++;
	close(fd);
	return n < 0 ? (int)n : count;
}

int guest_dmar_fault(int fd, uint64_t iova, char *line, size_t len)
{
	char want[64];

	snprintf(want, sizeof(want), "fault addr 0x%llx ",
		 (unsigned long long)iova);
	/* The fault is reported from an interrupt right after the DMA. */
	return guest_kmsg_find(fd, "DMAR: [DMA", want, line, len, 1000);
}
