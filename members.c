// SPDX-License-Identifier: GPL-2.0
/*
 * members.c - which member serves a slot, and whether it can be read or
 * written.  The lowest layer with stripe_cache.c: it calls nothing of
 * raid5x's own.  Callers hold no lock (RCU inside); a member returned with
 * a reference (nr_pending) is released with rdev_dec_pending.
 */
#include "raid5x.h"
#include "members.h"

/*
 * The member that serves slot @disk (under rcu_read_lock): its rdev, or,
 * between spare_active and the removal of a replaced member, the
 * replacement that is in sync already.
 */
static struct md_rdev *slot_member(struct r5x_conf *conf, int disk)
{
	struct md_rdev *rdev = rcu_dereference(conf->disks[disk].rdev);
	struct md_rdev *repl;

	if (!rdev || test_bit(Faulty, &rdev->flags)) {
		repl = rcu_dereference(conf->disks[disk].replacement);
		if (repl && test_bit(In_sync, &repl->flags) &&
		    !test_bit(Faulty, &repl->flags))
			return repl;
	}
	return rdev;
}

/*
 * Slot @disk's member with a reference, if it can take this I/O: not
 * faulty, and in sync unless @for_write (a spare being rebuilt is written).
 */
struct md_rdev *r5x_get_rdev(struct r5x_conf *conf, int disk, bool for_write)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = slot_member(conf, disk);
	if (rdev && (test_bit(Faulty, &rdev->flags) ||
		     (!for_write && !test_bit(In_sync, &rdev->flags))))
		rdev = NULL;
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/*
 * A member being rebuilt holds the right data below its recovery_offset
 * (md advances it only past completed sync writes): it can be read there.
 */
static bool readable_at(struct md_rdev *rdev, sector_t sector)
{
	return test_bit(In_sync, &rdev->flags) ||
		READ_ONCE(rdev->recovery_offset) >= sector + R5X_STRIPE_SECTORS;
}

/* Slot @disk's member with a reference, if it can be read at @sector. */
struct md_rdev *r5x_get_reader(struct r5x_conf *conf, int disk, sector_t sector)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = slot_member(conf, disk);
	if (rdev && (test_bit(Faulty, &rdev->flags) ||
		     !readable_at(rdev, sector)))
		rdev = NULL;
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/* Slot @disk's replacement, if it has a working one, with a reference. */
struct md_rdev *r5x_get_repl(struct r5x_conf *conf, int disk)
{
	struct md_rdev *rdev;

	/* most slots have none: every member write asks */
	if (!rcu_access_pointer(conf->disks[disk].replacement))
		return NULL;
	rcu_read_lock();
	rdev = rcu_dereference(conf->disks[disk].replacement);
	/*
	 * One that serves the slot already (slot_member) is written as the
	 * slot's member; one just in sync while the member it replaces is
	 * not yet faulty (spare_active) still takes every write here.
	 */
	if (rdev && (test_bit(Faulty, &rdev->flags) ||
		     slot_member(conf, disk) == rdev))
		rdev = NULL;
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/* Member @disk is missing or faulty, or (if @need_in_sync) not in sync. */
static bool disk_unusable(struct r5x_conf *conf, int disk, bool need_in_sync)
{
	struct md_rdev *rdev;
	bool bad;

	rcu_read_lock();
	rdev = slot_member(conf, disk);
	bad = !rdev || test_bit(Faulty, &rdev->flags) ||
		(need_in_sync && !test_bit(In_sync, &rdev->flags));
	rcu_read_unlock();
	return bad;
}

/* Member @disk cannot be read for this array (missing, faulty, rebuilding). */
bool r5x_disk_failed(struct r5x_conf *conf, int disk)
{
	return disk_unusable(conf, disk, true);
}

/*
 * The members that cannot be read for the stripe at member sector
 * @sector (bit i: slot i missing, faulty, or being rebuilt and not yet
 * past it), all in one RCU section: a stripe handler asks once a pass.
 */
unsigned long r5x_failed_at_mask(struct r5x_conf *conf, sector_t sector)
{
	unsigned long mask = 0;
	struct md_rdev *rdev;
	int i;

	rcu_read_lock();
	for (i = 0; i < conf->geom.raid_disks; i++) {
		rdev = slot_member(conf, i);
		if (!rdev || test_bit(Faulty, &rdev->flags) ||
		    !readable_at(rdev, sector))
			mask |= BIT(i);
	}
	rcu_read_unlock();
	return mask;
}

/*
 * Can slot @disk be written at all: its member, or a replacement being
 * copied while the member it replaces has failed?
 */
bool r5x_slot_writable(struct r5x_conf *conf, int disk)
{
	struct md_rdev *rdev, *repl;
	bool ok;

	rcu_read_lock();
	rdev = slot_member(conf, disk);
	repl = rcu_dereference(conf->disks[disk].replacement);
	ok = (rdev && !test_bit(Faulty, &rdev->flags)) ||
		(repl && !test_bit(Faulty, &repl->flags));
	rcu_read_unlock();
	return ok;
}

/* Member @disk cannot be written (missing or faulty). */
bool r5x_disk_faulty(struct r5x_conf *conf, int disk)
{
	return disk_unusable(conf, disk, false);
}

/*
 * A member failed, or a bad block was logged, and md has not yet written
 * that to the members' superblocks (md clears Blocked and
 * MD_SB_CHANGE_PENDING once it has): a degraded write now, or the
 * acknowledgment of a write a member missed, could leave data only parity
 * can reconstruct, on members that would still assemble with the stale
 * one after a crash.
 */
bool r5x_failure_unrecorded(struct r5x_conf *conf)
{
	struct md_rdev *rdev;
	bool blocked = false;
	int i;

	if (!conf->mddev->ro &&
	    test_bit(MD_SB_CHANGE_PENDING, &conf->mddev->sb_flags))
		return true;

	rcu_read_lock();
	for (i = 0; i < conf->geom.raid_disks && !blocked; i++) {
		rdev = rcu_dereference(conf->disks[i].rdev);
		blocked = rdev && test_bit(Blocked, &rdev->flags);
	}
	rcu_read_unlock();
	return blocked;
}

/*
 * May writes wait for md to record a failure now?  Always, as in raid5,
 * except while quiesced by a stop (md_stop_writes): md writes the
 * superblock only after the quiesce, which waits for those very writes.
 */
bool r5x_may_wait_record(struct r5x_conf *conf)
{
	return !READ_ONCE(conf->quiesce) ||
		r5x_sb_writable_quiesced(conf->mddev);
}
