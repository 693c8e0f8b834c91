// SPDX-License-Identifier: GPL-2.0
/*
 * tortio: the data side of the raid5x torture run (tests/torture/).
 *
 * Twin arrays (A: raid456, the oracle; B: raid5x) get the same writes and
 * are read back against a model: a file mapping every 4 KiB block to the
 * generation last written there. A block's contents are a pure function of
 * (seed, block, generation), so no data is stored; generation 0 is all
 * zeros (the members start as sparse, zeroed files, --assume-clean).
 *
 *   tortio init  MODEL NBLK SEED
 *   tortio write MODEL A B START NBLK IOBLKS MODE
 *   tortio read  MODEL A B START NBLK IOBLKS MODE
 *   tortio settle MODEL A B     rewrite every ambiguous block (new gen)
 *   tortio discard MODEL A B START NBLK ROWB GRANB
 *                               BLKDISCARD on both; the model's blocks in
 *                               the rows discarded become zeros (gen 0)
 *   tortio stat  MODEL
 *   tortio sb DEV...            print the DEVs holding an md v1.2 superblock
 *   tortio zero FILE...         punch every FILE's blocks (zeros again; the
 *                               loop devices on them stay attached)
 * MODE letters: d O_DIRECT (else buffered), f O_DSYNC (FUA on direct
 * writes), s fdatasync after the writes (a flush), p power-cut phase (the
 * blocks may end up old or new: both are accepted until settle; errors
 * ignored), k (reads) see ACKED below. A and B are written / read at the
 * same time (two processes).
 *
 * Per block a read is one of: right (the model's generation, or its
 * alternative while ambiguous), EIO, or wrong (what was found is decoded:
 * zeros, another block or generation, garbage). Agreement rules: an EIO on
 * both marks the block lost (any contents accepted afterwards, EIO must
 * still agree); an EIO on one array only, or wrong data on either, is a
 * divergence: "DIVERGE ..." lines on stdout, exit status 3. A write that
 * fails on one array only is a divergence; on both, the block becomes
 * ambiguous (old or new). Exit 0 otherwise, 2 on a usage or system error.
 * One exception, raid456's and not raid5x's: raid456 refuses a write
 * raid5x takes, or reads an older generation where raid5x reads the
 * model's (raid456 lost a buffered write whose error nobody saw): an
 * "ORACLE ..." line, the model follows raid5x (RESULTS.md, divergence 5).
 * raid456 reading any other wrong data where raid5x reads the model's
 * (a resumed rebuild that skipped regions, RESULTS.md, divergence 8) is
 * an "ORACLE-OFF ..." line and exit status 4: raid456 is off the oracle's
 * path, the caller goes on with raid5x alone.
 * A write raid456 takes and raid5x fails is not decided here: one "ACKED
 * B" line per block, the block ambiguous, exit status 5. The caller
 * restarts both arrays and reads the blocks back: raid456 acknowledged
 * writes it cannot return (RESULTS.md, divergence 15), or raid5x refused
 * one raid456 kept. MODE k on that read: raid456 EIO where raid5x reads
 * the model's takes raid456 off the oracle's path (exit 4), as above.
 * A read raid456 answers right and raid5x fails is not decided here
 * either (reads without MODE k): one "CACHED B" line per block, exit
 * status 6. raid456 serves a stripe's cached blocks after the members
 * holding them failed or listed them bad; the caller restarts both arrays
 * and raid456 must then fail those reads too (RESULTS.md, divergence 16).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/fs.h>

#define BS 4096
#define WORDS (BS / 8)
#define MAGIC 0x7a7aULL
#define NONE 0xffffffffu	/* no alternative generation */
#define LOST 0xfffffffeu	/* contents unknown: anything accepted */
#define MAXDIV 12		/* DIVERGE lines printed per command */

struct hdr {
	uint64_t magic, nblk, seed, next_gen;
};
struct ent {
	uint32_t gen, alt;	/* alt: NONE, or a second accepted gen */
};

static struct hdr *H;
static struct ent *E;
static int ndiv;
static int noracle;	/* raid456 lost a write raid5x kept (not divergences) */

static void die(const char *m)
{
	fprintf(stderr, "tortio: %s: %s\n", m, strerror(errno));
	exit(2);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void pattern(uint64_t *w, uint64_t blk, uint32_t gen)
{
	uint64_t x;
	int i;

	if (gen == 0) {
		memset(w, 0, BS);
		return;
	}
	w[0] = MAGIC << 48 | (H->seed & 0xffff) << 32 | (blk & 0xffffffff);
	w[1] = gen;
	x = mix(H->seed ^ blk << 20 ^ (uint64_t)gen << 44);
	for (i = 2; i < WORDS; i++)
		w[i] = x + i * 0x9e3779b97f4a7c15ULL;
}

/* describe what a wrong block holds */
static void decode(const uint64_t *w, uint64_t blk, char *out, size_t n)
{
	uint64_t want[WORDS];
	int i, z = 1;

	for (i = 0; i < WORDS; i++)
		if (w[i]) {
			z = 0;
			break;
		}
	if (z) {
		snprintf(out, n, "zeros");
		return;
	}
	if (w[0] >> 48 == MAGIC && w[1] < LOST) {
		uint64_t b = w[0] & 0xffffffff;

		pattern(want, b, (uint32_t)w[1]);
		if (!memcmp(want, w, BS)) {
			if (b == blk)
				snprintf(out, n, "gen %" PRIu64, w[1]);
			else
				snprintf(out, n, "block %" PRIu64 " gen %" PRIu64, b, w[1]);
			return;
		}
		for (i = 0; i < WORDS && want[i] == w[i]; i++)
			;
		snprintf(out, n, "block %" PRIu64 " gen %" PRIu64 " torn at byte %d",
			 b, w[1], i * 8);
		return;
	}
	snprintf(out, n, "garbage %016" PRIx64 " %016" PRIx64, w[0], w[1]);
}

static void map_model(const char *path, int create, uint64_t nblk, uint64_t seed)
{
	size_t len;
	int fd = open(path, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0644);
	struct stat st;

	if (fd < 0)
		die(path);
	if (create) {
		len = sizeof(struct hdr) + nblk * sizeof(struct ent);
		if (ftruncate(fd, len))
			die("ftruncate");
	} else {
		if (fstat(fd, &st))
			die("fstat");
		len = st.st_size;
	}
	H = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (H == MAP_FAILED)
		die("mmap");
	E = (struct ent *)(H + 1);
	if (create) {
		uint64_t b;

		H->magic = 0x746f727469 + 1;
		H->nblk = nblk;
		H->seed = seed;
		H->next_gen = 1;
		for (b = 0; b < nblk; b++) {
			E[b].gen = 0;
			E[b].alt = NONE;
		}
	}
	close(fd);
}

static void *abuf(size_t n)
{
	void *p;

	if (posix_memalign(&p, BS, n))
		die("posix_memalign");
	return p;
}

/* run fn for array 0 in a child and array 1 here, both at once */
typedef void (*side_fn)(int side, const char *dev, void *arg);
static void twin(const char *a, const char *b, side_fn fn, void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fn(0, a, arg);
		_exit(0);
	}
	fn(1, b, arg);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
}

struct job {
	uint64_t start, nblk, ioblks;
	const char *mode;
	uint32_t *gens;		/* write: the generation per block */
	uint8_t *res[2];	/* per block: 0 ok, 1 error / EIO, 2 wrong */
	char (*what)[2][80];	/* read: decoded wrong contents */
	uint64_t *map;		/* settle: block list */
};

static int has(const char *mode, char c)
{
	return strchr(mode, c) != NULL;
}

static void w_side(int side, const char *dev, void *arg)
{
	struct job *j = arg;
	int fl = O_WRONLY, fd;
	uint64_t off, b, k, n;
	char *buf;

	if (has(j->mode, 'd'))
		fl |= O_DIRECT;
	if (has(j->mode, 'f'))
		fl |= O_DSYNC;
	fd = open(dev, fl);
	if (fd < 0)
		die(dev);
	buf = abuf(j->ioblks * BS);
	for (off = 0; off < j->nblk; off += n) {
		ssize_t r;

		n = j->nblk - off < j->ioblks ? j->nblk - off : j->ioblks;
		for (k = 0; k < n; k++) {
			b = j->start + off + k;
			pattern((uint64_t *)(buf + k * BS), b, j->gens[off + k]);
		}
		r = pwrite(fd, buf, n * BS, (j->start + off) * BS);
		if (r != (ssize_t)(n * BS)) {
			/* the part written (short write) counts as written */
			for (k = r > 0 ? r / BS : 0; k < n; k++)
				j->res[side][off + k] = 1;
		}
	}
	if (has(j->mode, 's') && fdatasync(fd))
		for (k = 0; k < j->nblk; k++)
			j->res[side][k] = 1;
	close(fd);
	free(buf);
}

static void ambiguous(uint64_t b, uint32_t newgen)
{
	if (E[b].gen == LOST || E[b].alt != NONE)
		E[b].gen = LOST, E[b].alt = NONE;
	else
		E[b].alt = E[b].gen, E[b].gen = newgen;
}

/* START NBLK IOBLKS MODE of a write or read command (av[3..6]), clipped */
static void parse_job(struct job *j, char **av)
{
	j->start = strtoull(av[3], NULL, 0);
	j->nblk = strtoull(av[4], NULL, 0);
	j->ioblks = strtoull(av[5], NULL, 0);
	j->mode = av[6];
	if (!j->ioblks)
		j->ioblks = 1;
	if (j->start + j->nblk > H->nblk)
		j->nblk = j->start >= H->nblk ? 0 : H->nblk - j->start;
}

static int cmd_write(char **av)
{
	struct job j = { 0 };
	const char *a = av[1], *bd = av[2];
	uint64_t k, b, nacked = 0;
	int bad = 0;

	parse_job(&j, av);
	j.gens = calloc(j.nblk + 1, 4);
	j.res[0] = mmap(NULL, 2 * (j.nblk + 1), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j.res[0] == MAP_FAILED)
		die("mmap");
	j.res[1] = j.res[0] + j.nblk + 1;
	for (k = 0; k < j.nblk; k++)
		j.gens[k] = (uint32_t)H->next_gen++;
	twin(a, bd, w_side, &j);
	for (k = 0; k < j.nblk; k++) {
		b = j.start + k;
		if (has(j.mode, 'p')) {
			ambiguous(b, j.gens[k]);
		} else if (j.res[0][k] && !j.res[1][k]) {
			/* raid456 refused a write raid5x took (raid456's: see
			 * RESULTS.md, divergence 5); raid5x's data is the model's */
			if (noracle++ < MAXDIV)
				printf("ORACLE write block %" PRIu64 ": raid456 error, raid5x ok\n", b);
			E[b].gen = j.gens[k];
			E[b].alt = NONE;
		} else if (!j.res[0][k] && j.res[1][k]) {
			/* raid456 ok, raid5x error: the caller decides */
			printf("ACKED %" PRIu64 "\n", b);
			nacked++;
			ambiguous(b, j.gens[k]);
		} else if (j.res[0][k] != j.res[1][k]) {
			if (ndiv++ < MAXDIV)
				printf("DIVERGE write block %" PRIu64 ": raid456 %s, raid5x %s\n",
				       b, j.res[0][k] ? "error" : "ok",
				       j.res[1][k] ? "error" : "ok");
			bad = 1;
			ambiguous(b, j.gens[k]);
		} else if (j.res[0][k]) {
			ambiguous(b, j.gens[k]);
		} else {
			E[b].gen = j.gens[k];
			E[b].alt = NONE;
		}
	}
	printf("tortio: wrote %" PRIu64 " blocks at %" PRIu64 " (%s)%s%s%s\n", j.nblk,
	       j.start, j.mode, noracle ? ", raid456 lost writes raid5x kept" : "",
	       nacked && !bad ? ", raid456 took writes raid5x failed" : "",
	       bad ? ", DIVERGED" : "");
	return bad ? 3 : nacked ? 5 : 0;
}

static int block_ok(uint64_t b, const uint64_t *w, uint64_t *want)
{
	if (E[b].gen == LOST)
		return 1;
	pattern(want, b, E[b].gen);
	if (!memcmp(want, w, BS))
		return 1;
	if (E[b].alt == NONE)
		return 0;
	pattern(want, b, E[b].alt);
	return !memcmp(want, w, BS);
}

static void r_side(int side, const char *dev, void *arg)
{
	struct job *j = arg;
	int fl = O_RDONLY, fd;
	uint64_t off, k, n, b;
	uint64_t *want = abuf(BS);
	char *buf;

	if (has(j->mode, 'd'))
		fl |= O_DIRECT;
	fd = open(dev, fl);
	if (fd < 0)
		die(dev);
	if (!has(j->mode, 'd')) {
		/* buffered: start from an empty page cache (writes back first) */
		ioctl(fd, BLKFLSBUF, 0);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	}
	buf = abuf(j->ioblks * BS);
	for (off = 0; off < j->nblk; off += n) {
		ssize_t r;

		n = j->nblk - off < j->ioblks ? j->nblk - off : j->ioblks;
		r = pread(fd, buf, n * BS, (j->start + off) * BS);
		for (k = 0; k < n; k++) {
			b = j->start + off + k;
			if (r != (ssize_t)(n * BS)) {
				/* find the failing blocks one by one */
				if (pread(fd, buf + k * BS, BS, b * BS) != BS) {
					j->res[side][off + k] = 1;
					continue;
				}
			}
			if (!block_ok(b, (uint64_t *)(buf + k * BS), want)) {
				j->res[side][off + k] = 2;
				decode((uint64_t *)(buf + k * BS), b,
				       j->what[off + k][side], sizeof(j->what[0][0]));
			}
		}
	}
	close(fd);
	free(buf);
	free(want);
}

/*
 * Did raid456 return an older generation of block @b (what it read decoded
 * as @what) where the model, and raid5x, hold a newer one?  Then raid456
 * lost a write (a buffered one: writeback errors reach nobody) that raid5x
 * kept. raid5x read right: not raid5x's divergence (RESULTS.md, 5).
 */
static int stale_at_raid456(uint64_t b, const char *what)
{
	unsigned int g;
	char tail;

	if (E[b].gen == LOST || E[b].alt != NONE)
		return 0;
	if (!strcmp(what, "zeros"))
		return E[b].gen > 0;
	return sscanf(what, "gen %u%c", &g, &tail) == 1 && g < E[b].gen;
}

static const char *expect(uint64_t b, char *s, size_t n)
{
	if (E[b].gen == LOST)
		snprintf(s, n, "lost");
	else if (E[b].alt != NONE)
		snprintf(s, n, "gen %u or %u", E[b].gen, E[b].alt);
	else
		snprintf(s, n, "gen %u", E[b].gen);
	return s;
}

static int cmd_read(char **av)
{
	struct job j = { 0 };
	uint64_t k, b, lost = 0, okb = 0;
	size_t sz;
	int bad = 0, off = 0, cached = 0;
	char e[48];
	static const char *nm[3] = { "ok", "EIO", "wrong" };

	parse_job(&j, av);
	sz = 2 * (j.nblk + 1) + (j.nblk + 1) * sizeof(*j.what);
	j.res[0] = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (j.res[0] == MAP_FAILED)
		die("mmap");
	j.res[1] = j.res[0] + j.nblk + 1;
	j.what = (void *)(j.res[1] + j.nblk + 1);
	twin(av[1], av[2], r_side, &j);
	for (k = 0; k < j.nblk; k++) {
		b = j.start + k;
		uint8_t ra = j.res[0][k], rb = j.res[1][k];

		if (ra == 0 && rb == 0) {
			okb++;
			continue;
		}
		if (ra == 1 && rb == 1) {
			if (E[b].gen != LOST)
				lost++;
			E[b].gen = LOST;
			E[b].alt = NONE;
			continue;
		}
		if (ra == 2 && rb == 0 && stale_at_raid456(b, j.what[k][0])) {
			if (noracle++ < MAXDIV)
				printf("ORACLE read block %" PRIu64 " (%s): raid456 stale: %s, raid5x right\n",
				       b, expect(b, e, sizeof(e)), j.what[k][0]);
			continue;
		}
		if (ra == 1 && rb == 0 && has(j.mode, 'k')) {
			/* raid456 lost a write it acknowledged (RESULTS.md, 15) */
			off = 1;
			if (noracle++ < MAXDIV)
				printf("ORACLE-OFF read block %" PRIu64 " (%s): raid456 EIO after acknowledging its write, raid5x right\n",
				       b, expect(b, e, sizeof(e)));
			continue;
		}
		if (ra == 0 && rb == 1 && !has(j.mode, 'k')) {
			/* raid456's cache, or raid5x's bug: the caller decides */
			cached = 1;
			printf("CACHED %" PRIu64 "\n", b);
			continue;
		}
		if (ra == 2 && rb == 0) {
			/* raid456 off the oracle's path (RESULTS.md, 8) */
			off = 1;
			if (noracle++ < MAXDIV)
				printf("ORACLE-OFF read block %" PRIu64 " (%s): raid456 wrong: %s, raid5x right\n",
				       b, expect(b, e, sizeof(e)), j.what[k][0]);
			continue;
		}
		bad = 1;
		if (ndiv++ < MAXDIV)
			printf("DIVERGE read block %" PRIu64 " (%s): raid456 %s%s%s, raid5x %s%s%s\n",
			       b, expect(b, e, sizeof(e)), nm[ra], ra == 2 ? ": " : "",
			       ra == 2 ? j.what[k][0] : "", nm[rb], rb == 2 ? ": " : "",
			       rb == 2 ? j.what[k][1] : "");
	}
	printf("tortio: read %" PRIu64 " blocks at %" PRIu64 " (%s): %" PRIu64
	       " right, %" PRIu64 " newly lost on both%s%s\n", j.nblk, j.start, j.mode,
	       okb, lost, noracle ? ", raid456 stale where raid5x is right" : "",
	       bad ? ", DIVERGED" : "");
	return bad ? 3 : off ? 4 : cached ? 6 : 0;
}

/* rewrite every ambiguous block (direct, FUA) with a new generation */
static int cmd_settle(char **av)
{
	uint64_t b = 0, e, n = 0;
	int rc = 0;

	/* each run of ambiguous blocks in one write job (a job per block
	 * forked twice per block: 30 s for 1024 blocks under TCG) */
	while (b < H->nblk) {
		char s[3][24];
		char *w[7] = { "write", av[1], av[2], s[0], s[1], s[2], "df" };

		if (E[b].alt == NONE) {
			b++;
			continue;
		}
		for (e = b; e < H->nblk && E[e].alt != NONE; e++)
			;
		snprintf(s[0], sizeof(s[0]), "%" PRIu64, b);
		snprintf(s[1], sizeof(s[1]), "%" PRIu64, e - b);
		snprintf(s[2], sizeof(s[2]), "%" PRIu64, e - b < 64 ? e - b : 64);
		if (cmd_write(w))
			rc = 3;
		n += e - b;
		b = e;
	}
	printf("tortio: settled %" PRIu64 " ambiguous blocks\n", n);
	return rc;
}

static int cmd_stat(void)
{
	uint64_t b, lost = 0, amb = 0, written = 0;

	for (b = 0; b < H->nblk; b++) {
		if (E[b].gen == LOST)
			lost++;
		else if (E[b].alt != NONE)
			amb++;
		else if (E[b].gen)
			written++;
	}
	printf("blocks %" PRIu64 " written %" PRIu64 " ambiguous %" PRIu64 " lost %" PRIu64
	       " next_gen %" PRIu64 "\n", H->nblk, written, amb, lost, H->next_gen);
	return 0;
}

static int discard_dev(const char *dev, uint64_t start, uint64_t n)
{
	uint64_t r[2] = { start * BS, n * BS };
	int fd = open(dev, O_RDWR), e = 0;

	if (fd < 0)
		return errno;
	if (ioctl(fd, BLKDISCARD, r))
		e = errno;
	close(fd);
	return e;
}

/* the whole rows (of ROWB blocks) inside blocks [p, q) read zeros now */
static void zero_rows(uint64_t p, uint64_t q, uint64_t rowb)
{
	uint64_t b = (p + rowb - 1) / rowb * rowb, e = q / rowb * rowb;

	for (; b < e && b < H->nblk; b++)
		E[b].gen = 0, E[b].alt = NONE;
}

/*
 * START NBLK ROWB GRANB (av[3..6]): discard blocks START..+NBLK of both.
 * Both must agree (done or refused).  The block layer sends an unaligned
 * discard as two bios cut at the first multiple of the granularity (GRANB
 * blocks), and raid456, the oracle, discards the whole rows inside each
 * bio: those blocks are zeros in the model.
 */
static int cmd_discard(char **av)
{
	uint64_t s = strtoull(av[3], NULL, 0), n = strtoull(av[4], NULL, 0);
	uint64_t rowb = strtoull(av[5], NULL, 0), granb = strtoull(av[6], NULL, 0);
	uint64_t a;
	int ea, eb;

	if (s >= H->nblk || !rowb)
		return 2;
	if (n > H->nblk - s)
		n = H->nblk - s;
	ea = discard_dev(av[1], s, n);
	eb = discard_dev(av[2], s, n);
	if (ea != eb) {
		printf("DIVERGE discard %" PRIu64 "+%" PRIu64 ": raid456 %s, raid5x %s\n",
		       s, n, ea ? strerror(ea) : "done", eb ? strerror(eb) : "done");
		return 3;
	}
	if (ea) {
		printf("tortio: discard %" PRIu64 "+%" PRIu64 " refused by both: %s\n",
		       s, n, strerror(ea));
		return 0;
	}
	a = granb ? (s + granb - 1) / granb * granb : s;
	if (a > s + n)
		a = s + n;
	zero_rows(s, a, rowb);
	zero_rows(a, s + n, rowb);
	printf("tortio: discard %" PRIu64 "+%" PRIu64 " done on both\n", s, n);
	return 0;
}

/* md v1.x superblock magic at 4 KiB (v1.2); one line, space-separated */
static int cmd_sb(int n, char **devs)
{
	uint32_t magic;
	int i, fd, first = 1;

	for (i = 0; i < n; i++) {
		fd = open(devs[i], O_RDONLY);
		if (fd < 0)
			continue;
		if (pread(fd, &magic, 4, 4096) == 4 && magic == 0xa92b4efc) {
			printf("%s%s", first ? "" : " ", devs[i]);
			first = 0;
		}
		close(fd);
	}
	printf("\n");
	return 0;
}

/* zero FILE...: deallocate every block of each FILE (tmpfs: zeros again) */
static int cmd_zero(int n, char **files)
{
	int i, rc = 0;

	for (i = 0; i < n; i++) {
		struct stat st;
		int fd = open(files[i], O_RDWR);

		if (fd < 0 || fstat(fd, &st) ||
		    (st.st_size && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					     0, st.st_size))) {
			fprintf(stderr, "tortio: zero %s: %s\n", files[i], strerror(errno));
			rc = 2;
		}
		if (fd >= 0)
			close(fd);
	}
	return rc;
}

int main(int ac, char **av)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ac >= 2 && !strcmp(av[1], "sb"))
		return cmd_sb(ac - 2, av + 2);
	if (ac >= 2 && !strcmp(av[1], "zero"))
		return cmd_zero(ac - 2, av + 2);
	if (ac == 5 && !strcmp(av[1], "init")) {
		map_model(av[2], 1, strtoull(av[3], NULL, 0), strtoull(av[4], NULL, 0));
		return 0;
	}
	if (ac >= 3)
		map_model(av[2], 0, 0, 0);
	if (ac == 9 && !strcmp(av[1], "write"))
		return cmd_write(av + 2);
	if (ac == 9 && !strcmp(av[1], "read"))
		return cmd_read(av + 2);
	if (ac == 9 && !strcmp(av[1], "discard"))
		return cmd_discard(av + 2);
	if (ac == 5 && !strcmp(av[1], "settle"))
		return cmd_settle(av + 2);
	if (ac == 3 && !strcmp(av[1], "stat"))
		return cmd_stat();
	fprintf(stderr, "usage: tortio init MODEL NBLK SEED | write|read MODEL A B START NBLK IOBLKS MODE | settle MODEL A B | discard MODEL A B START NBLK ROWB GRANB | stat MODEL | sb DEV... | zero FILE...\n");
	return 2;
}
