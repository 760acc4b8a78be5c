/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task mode's programs, included by tslack.bpf.c (one object, one
 * skeleton, the same maps): the plan iterators that say which thread's
 * own slack tslackctl follow writes, and the programs that tell follow
 * which threads to plan again as they fork, move, set their own slack or
 * change scheduling class, and when the settings map was written.
 */

/* uapi values, which BTF does not carry. */
#define BPF_MAP_UPDATE_ELEM_CMD		2
#define BPF_MAP_DELETE_ELEM_CMD		3
#define BPF_MAP_UPDATE_BATCH_CMD	26
#define BPF_MAP_DELETE_BATCH_CMD	27
/* union bpf_attr: map_fd of the element commands, and of the batch ones. */
#define ATTR_ELEM_MAP_FD	0
#define ATTR_BATCH_MAP_FD	36

/* The settings map's id, set by the loader: a write to it wakes follow. */
__u32 settings_map_id;

/*
 * Per-task mode's rule for thread @p, to which the cgroups impose
 * @imposed: whether its slack must be written, and what, in @w. A
 * thread's own larger slack is kept; a thread whose slack was raised and
 * is imposed less gets its own back, and is forgotten once it has it.
 * Realtime and deadline threads are never raised; one raised before it
 * became one gets its own slack back (kernels that zero a realtime
 * thread's slack have done it already), and is forgotten.
 */
static __always_inline bool plan(struct task_struct *p, __u64 imposed, struct tslack_write *w)
{
	__u64 cur = p->timer_slack_ns, target;
	struct raised *r;

	r = bpf_task_storage_get(&raised, p, NULL, 0);
	if (rt_or_dl(p)) {
		if (!r)
			return false;
		target = cur == r->written ? r->own : cur;
		bpf_task_storage_delete(&raised, p);
		if (target == cur)
			return false;
		goto write;
	}
	if (!r) {
		if (imposed <= cur)
			return false;
		r = bpf_task_storage_get(&raised, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!r)
			return false;
		r->own = cur;
		r->written = 0;
	} else if (cur != r->written && cur != r->own) {
		/* Set since by the thread, or someone: its own now. */
		r->own = cur;
	}
	target = r->own > imposed ? r->own : imposed;
	if (target == cur) {
		if (target == r->own)
			bpf_task_storage_delete(&raised, p);
		return false;
	}
	if (target != r->own)
		r->written = target;
write:
	w->tid = p->pid;
	w->start_boottime = p->start_boottime;
	w->expect = cur;
	w->slack = target;
	return true;
}

static __always_inline bool plan_task(struct task_struct *p, struct tslack_write *w)
{
	return plan(p, imposed_on(p->cgroups->dfl_cgrp), w);
}

/*
 * Whether thread @p's slack is not what plan_task() would make it: only
 * read, for the programs that run as threads fork, move and set their
 * slack. Planning (which changes what is remembered) is left to the apply
 * iterator, which tslackctl follow runs right before it writes.
 */
static __always_inline bool needs_plan(struct task_struct *p)
{
	struct raised *r = bpf_task_storage_get(&raised, p, NULL, 0);
	__u64 imposed, own, target;

	if (rt_or_dl(p))
		return r && p->timer_slack_ns == r->written && r->written != r->own;
	imposed = imposed_on(p->cgroups->dfl_cgrp);
	own = own_slack(p, r);
	target = own > imposed ? own : imposed;
	return target != p->timer_slack_ns || (r && target == own);
}

/* tslackctl follow's full pass: every thread whose slack must change. */
SEC("iter/task")
int tslack_apply(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct tslack_write w = {};

	if (p && plan_task(p, &w))
		bpf_seq_write(ctx->meta->seq, &w, sizeof(w));
	return 0;
}

/* tslackctl detach in per-task mode: every raised thread gets its own back. */
SEC("iter/task")
int tslack_restore(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct tslack_write w = {};

	if (p && plan(p, 0, &w))
		bpf_seq_write(ctx->meta->seq, &w, sizeof(w));
	return 0;
}

/* What happens between full passes, for tslackctl follow to act on. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* Events the ring buffer had no room for: follow then makes a full pass. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} events_lost SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 zero = 0;
	__u64 *lost;

	lost = bpf_map_lookup_elem(&events_lost, &zero);
	if (lost)
		__sync_fetch_and_add(lost, 1);
}

static __always_inline void emit(__u32 type, struct task_struct *p)
{
	struct tslack_event *ev;

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count_lost();
		return;
	}
	ev->type = type;
	ev->pid = p ? p->pid : 0;
	ev->tgid = p ? p->tgid : 0;
	ev->pad = 0;
	bpf_ringbuf_submit(ev, 0);
}

/*
 * A new thread has its parent's slack, raised or not (kernel/fork.c): it
 * inherits what is known of the parent's own, and is planned in its own
 * cgroup (clone3's CLONE_INTO_CGROUP). No event when the parent's slack
 * is right for it: a fork storm in a cgroup with a setting costs follow
 * nothing. A child whose record cannot be made (no memory, or a busy
 * storage lock) would keep the raised slack as its own for ever: follow
 * gives it its own back at once instead.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(tslack_fork, struct task_struct *parent, struct task_struct *child)
{
	struct raised *pr, *cr;
	struct tslack_unraise *u;

	pr = bpf_task_storage_get(&raised, parent, NULL, 0);
	if (pr && child->timer_slack_ns == pr->written && pr->written != pr->own) {
		cr = bpf_task_storage_get(&raised, child, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (cr) {
			cr->own = pr->own;
			cr->written = pr->written;
		} else {
			u = bpf_ringbuf_reserve(&events, sizeof(*u), 0);
			if (!u) {
				count_lost();
				return 0;
			}
			u->ev.type = TSLACK_EV_UNRAISE;
			u->ev.pid = child->pid;
			u->ev.tgid = child->tgid;
			u->ev.pad = 0;
			u->w.tid = child->pid;
			u->w.pad = 0;
			u->w.start_boottime = child->start_boottime;
			u->w.expect = pr->written;
			u->w.slack = pr->own;
			bpf_ringbuf_submit(u, 0);
			return 0;
		}
	}
	if (needs_plan(child))
		emit(TSLACK_EV_THREAD, child);
	return 0;
}

/*
 * A move into or out of a cgroup (cgroup.procs, cgroup.threads): the
 * thread, or every thread of the process, if the moved thread (the main
 * one for a process) must be raised or given its own slack back. A move
 * that no setting concerns costs follow nothing, however many threads
 * the process has; its other threads, if they differ, wait for the next
 * full pass. (A second walk of the hierarchy, for the destination, made
 * the program too large for the verifier.)
 */
SEC("fexit/cgroup_attach_task")
int BPF_PROG(tslack_attach_task, struct cgroup *dst, struct task_struct *leader,
	     bool threadgroup, int ret)
{
	if (ret || !needs_plan(leader))
		return 0;
	if (threadgroup && leader->signal->nr_threads > 1)
		emit(TSLACK_EV_PROCESS, leader);
	else
		emit(TSLACK_EV_THREAD, leader);
	return 0;
}

/* A thread that sets its own slack lower than imposed is raised again. */
static __always_inline void check_self(void)
{
	struct task_struct *p = bpf_get_current_task_btf();

	if (needs_plan(p))
		emit(TSLACK_EV_THREAD, p);
}

SEC("fexit/__x64_sys_prctl")
int BPF_PROG(tslack_prctl, struct pt_regs *regs, long ret)
{
	if (!ret && PT_REGS_PARM1_CORE_SYSCALL(regs) == PR_SET_TIMERSLACK)
		check_self();
	return 0;
}

/* The same from a 32-bit program: its first argument is in bx. */
SEC("fexit/__ia32_sys_prctl")
int BPF_PROG(tslack_prctl32, struct pt_regs *regs, long ret)
{
	if (!ret && BPF_CORE_READ(regs, bx) == PR_SET_TIMERSLACK)
		check_self();
	return 0;
}

/*
 * tslackctl follow's process, whose own writes to threads' slack need no
 * event, and when it last caught up (for tslackctl status).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tslack_follower);
} follower SEC(".maps");

/*
 * A write to /proc/TID/timerslack_ns, by the thread itself (no
 * capability needed), a root of its user namespace or anyone allowed to:
 * follow plans the thread it names. The proc inode holds the thread's
 * struct pid, and that its task; read as Linux 6.1 allows (no
 * bpf_task_from_pid()).
 */
SEC("fexit/timerslack_ns_write")
int BPF_PROG(tslack_proc_write, struct file *file, const char *buf, size_t count,
	     loff_t *offset, ssize_t ret)
{
	struct tslack_event *ev;
	struct task_struct *t;
	struct proc_inode *pi;
	__u64 inode, first;
	struct tslack_follower *f;
	struct pid *pid;
	__u32 zero = 0;

	f = bpf_map_lookup_elem(&follower, &zero);
	if (ret <= 0 || (f && f->tgid == bpf_get_current_pid_tgid() >> 32))
		return 0;
	inode = (__u64)BPF_CORE_READ(file, f_inode);
	pi = (void *)(inode - bpf_core_field_offset(struct proc_inode, vfs_inode));
	pid = BPF_CORE_READ(pi, pid);
	first = (__u64)BPF_CORE_READ(pid, tasks[PIDTYPE_PID].first);
	if (!first)
		return 0;
	t = (void *)(first - bpf_core_field_offset(struct task_struct, pid_links));
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count_lost();
		return 0;
	}
	ev->type = TSLACK_EV_THREAD;
	ev->pid = BPF_CORE_READ(t, pid);
	ev->tgid = BPF_CORE_READ(t, tgid);
	ev->pad = 0;
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/*
 * A write to the settings map through the bpf() syscall (bpftool map
 * update, a script): follow makes a full pass, as after tslackctl's own
 * writes. The map is found from the caller's descriptor table; a
 * descriptor reused meanwhile costs only a pass.
 */
SEC("fexit/__x64_sys_bpf")
int BPF_PROG(tslack_map_write, struct pt_regs *regs, long ret)
{
	struct task_struct *p = bpf_get_current_task_btf();
	int cmd = PT_REGS_PARM1_CORE_SYSCALL(regs);
	const char *attr = (const char *)PT_REGS_PARM2_CORE_SYSCALL(regs);
	struct file **fds, *f;
	struct bpf_map *map;
	__u32 fd, max;

	if (cmd == BPF_MAP_UPDATE_ELEM_CMD || cmd == BPF_MAP_DELETE_ELEM_CMD) {
		if (ret || bpf_probe_read_user(&fd, sizeof(fd), attr + ATTR_ELEM_MAP_FD))
			return 0;
	} else if (cmd == BPF_MAP_UPDATE_BATCH_CMD || cmd == BPF_MAP_DELETE_BATCH_CMD) {
		/* A batch may fail after some of its writes. */
		if (bpf_probe_read_user(&fd, sizeof(fd), attr + ATTR_BATCH_MAP_FD))
			return 0;
	} else {
		return 0;
	}
	max = BPF_CORE_READ(p, files, fdt, max_fds);
	if (fd >= max)
		return 0;
	fds = BPF_CORE_READ(p, files, fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd) || !f)
		return 0;
	map = BPF_CORE_READ(f, private_data);
	if (map && BPF_CORE_READ(map, id) == settings_map_id)
		emit(TSLACK_EV_ALL, NULL);
	return 0;
}
