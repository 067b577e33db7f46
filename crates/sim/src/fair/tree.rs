//! The run queue's tree: `cfs_rq->tasks_timeline`, the kernel's `rb_root_cached` of the queued
//! entities other than curr, with the augmented per-subtree minimums of `min_vruntime_cb`.
//!
//! Ordered by (key, insertion sequence), the key being vruntime (CFS, EEVDF 6.6:
//! `entity_before` on vruntime) or deadline (EEVDF 6.8+: `entity_before` on deadline); keys are
//! compared the kernel's way, `(s64)(a − b) < 0`, so they may wrap. Equal keys go right, so
//! among equal keys the earlier inserted is further left: the tie rule the model has always
//! had. Each node carries what the kernel's augmented callbacks keep for its subtree,
//! `min_vruntime` (6.8+: `se->min_vruntime`), `min_slice` (6.12+: `se->min_slice`), and the
//! entity with the earliest (deadline, vruntime, insertion) (6.6's `se->min_deadline`, with the
//! model's tie rule, see `pick_eevdf`), so that
//! - the leftmost entity is cached (`rb_first_cached`): O(1);
//! - `update_min_vruntime` and `cfs_rq_min_slice` read the root: O(1);
//! - `__pick_eevdf` descends once: O(log n) (the eligible entities are a prefix in vruntime
//!   order and, in a deadline-ordered tree, a left subtree whose `min_vruntime` is eligible
//!   holds the first eligible entity);
//! - insertion and removal are O(log n), with the augmentation fixed on the way back up.
//!
//! The structure is a treap (a binary search tree that is a heap on random priorities), not
//! the kernel's red-black tree: the same O(log n) bounds in expectation, with insertion and
//! removal written as a split and a merge (an insertion lowers the augmented values of the
//! nodes above its place on the way down; a removal recomputes its ancestors until one is
//! unchanged), which is a fraction of the code of rb-tree rebalancing with augmented
//! rotations (and with `#![forbid(unsafe_code)]`, nodes are indices into an arena rather than
//! intrusive pointers). The priorities come from a small PRNG owned by the tree, so the shape
//! is a pure function of the sequence of operations: runs stay deterministic. The shape never
//! decides anything the model computes: every query answers by the order alone.
//!
//! Nodes cache the keys (vruntime, deadline, slice, weight) of their entities: the kernel,
//! too, changes them only outside the tree (curr is not in it; a queued entity is dequeued,
//! changed and enqueued again), and the invariant check compares the cache with the entities.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{before, Tid};

const NIL: u32 = u32::MAX;

/// One queued entity in the tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    tid: u32,
    left: u32,
    right: u32,
    prio: u32,
    /// The order key: vruntime or deadline.
    key: i64,
    seq: u64,
    vruntime: i64,
    deadline: i64,
    slice: u64,
    // Augmented over the subtree:
    min_vruntime: i64,
    min_slice: u64,
    /// The node with the earliest (deadline, vruntime, seq).
    best: u32,
}

/// What the tree needs of an entity to queue it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Keys {
    pub vruntime: i64,
    pub deadline: i64,
    pub slice: u64,
    pub seq: u64,
}

/// The ordered run queue (see the module doc).
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Node index of each queued task (by Tid), `NIL` when not queued here.
    slot: Vec<u32>,
    root: u32,
    leftmost: u32,
    len: u32,
    by_deadline: bool,
    /// Whether nodes keep their subtree's earliest (deadline, vruntime, seq): only 6.6's pick
    /// asks for it.
    track_best: bool,
    rng: u32,
    /// Scratch for `unlink`'s path from the root (kept to reuse its allocation).
    path: Vec<u32>,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            nodes: Vec::new(),
            free: Vec::new(),
            slot: Vec::new(),
            root: NIL,
            leftmost: NIL,
            len: 0,
            by_deadline: false,
            track_best: false,
            rng: 0x9e37_79b9,
            path: Vec::new(),
        }
    }
}

impl Tree {
    /// Orders the tree by deadline (EEVDF 6.8+) instead of vruntime, and says whether the
    /// nodes keep the earliest deadline of their subtree (EEVDF 6.6). Only on an empty tree.
    pub fn set_order(&mut self, by_deadline: bool, track_best: bool) {
        debug_assert!(
            self.len == 0,
            "the tree's order changes only while it is empty"
        );
        self.by_deadline = by_deadline;
        self.track_best = track_best;
    }

    /// Number of queued entities in the tree.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether `id` is in the tree.
    pub fn contains(&self, id: &Tid) -> bool {
        self.slot.get(*id).is_some_and(|&s| s != NIL)
    }

    /// The queued tasks, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = Tid> + '_ {
        self.nodes
            .iter()
            .filter(|n| n.tid != NIL)
            .map(|n| n.tid as Tid)
    }

    /// The leftmost entity (`__pick_first_entity`).
    pub fn leftmost(&self) -> Option<Tid> {
        (self.leftmost != NIL).then(|| self.nodes[self.leftmost as usize].tid as Tid)
    }

    /// The smallest vruntime in the tree (the root's augmented `min_vruntime`).
    pub fn min_vruntime(&self) -> Option<i64> {
        (self.root != NIL).then(|| self.nodes[self.root as usize].min_vruntime)
    }

    /// The shortest slice in the tree (the root's augmented `min_slice`).
    pub fn min_slice(&self) -> Option<u64> {
        (self.root != NIL).then(|| self.nodes[self.root as usize].min_slice)
    }

    /// `__pick_eevdf`'s search in a deadline-ordered tree (6.8+): the leftmost entity whose
    /// vruntime is eligible. A subtree whose `min_vruntime` is eligible holds an eligible
    /// entity, and the leftmost one of the whole tree lies in the left subtree whenever that
    /// one does.
    pub fn first_eligible(&self, eligible: impl Fn(i64) -> bool) -> Option<Tid> {
        debug_assert!(self.by_deadline);
        if self.leftmost != NIL && eligible(self.nodes[self.leftmost as usize].vruntime) {
            return self.leftmost();
        }
        let mut n = self.root;
        while n != NIL {
            let node = &self.nodes[n as usize];
            if node.left != NIL && eligible(self.nodes[node.left as usize].min_vruntime) {
                n = node.left;
                continue;
            }
            if eligible(node.vruntime) {
                return Some(node.tid as Tid);
            }
            n = node.right;
        }
        None
    }

    /// The eligible entity with the earliest (deadline, vruntime, insertion) in a
    /// vruntime-ordered tree (6.6): the eligible entities are those left of some point in
    /// vruntime order, so every node on the way down that is eligible brings its whole left
    /// subtree in (its augmented best) and the search goes right; one that is not goes left.
    pub fn best_eligible(&self, eligible: impl Fn(i64) -> bool) -> Option<Tid> {
        debug_assert!(!self.by_deadline && self.track_best);
        let mut best = NIL;
        let mut n = self.root;
        while n != NIL {
            let node = &self.nodes[n as usize];
            if eligible(node.vruntime) {
                best = self.earlier(best, n);
                if node.left != NIL {
                    best = self.earlier(best, self.nodes[node.left as usize].best);
                }
                n = node.right;
            } else {
                n = node.left;
            }
        }
        (best != NIL).then(|| self.nodes[best as usize].tid as Tid)
    }

    /// `__enqueue_entity`.
    pub fn insert(&mut self, id: Tid, k: Keys) {
        debug_assert!(!self.contains(&id), "task {} inserted twice", id + 1);
        // xorshift32: deterministic priorities.
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        let node = Node {
            tid: id as u32,
            left: NIL,
            right: NIL,
            prio: x,
            key: if self.by_deadline {
                k.deadline
            } else {
                k.vruntime
            },
            seq: k.seq,
            vruntime: k.vruntime,
            deadline: k.deadline,
            slice: k.slice,
            min_vruntime: k.vruntime,
            min_slice: k.slice,
            best: NIL,
        };
        let n = match self.free.pop() {
            Some(n) => {
                self.nodes[n as usize] = node;
                n
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.nodes[n as usize].best = n;
        if self.slot.len() <= id {
            self.slot.resize(id + 1, NIL);
        }
        self.slot[id] = n;
        self.link(n);
        if self.leftmost == NIL || self.less(n, self.leftmost) {
            self.leftmost = n;
        }
        self.len += 1;
    }

    /// `__dequeue_entity`. Returns the vruntime `id` was queued with, `None` when it was not in
    /// the tree.
    pub fn remove(&mut self, id: Tid) -> Option<i64> {
        let &n = self.slot.get(id).filter(|&&s| s != NIL)?;
        self.slot[id] = NIL;
        self.unlink(n);
        self.nodes[n as usize].tid = NIL;
        self.free.push(n);
        self.len -= 1;
        Some(self.nodes[n as usize].vruntime)
    }

    /// a < b in tree order: (key, seq), keys compared as the kernel does.
    fn less(&self, a: u32, b: u32) -> bool {
        let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let d = x.key.wrapping_sub(y.key);
        d < 0 || (d == 0 && x.seq < y.seq)
    }

    /// The earlier of two nodes by (deadline, vruntime, seq); `NIL` loses.
    fn earlier(&self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let dd = x.deadline.wrapping_sub(y.deadline);
        let dv = x.vruntime.wrapping_sub(y.vruntime);
        if dd < 0 || (dd == 0 && (dv < 0 || (dv == 0 && x.seq < y.seq))) {
            a
        } else {
            b
        }
    }

    /// A node's augmented values from its own keys and its children's (`min_vruntime_update`).
    fn augmented(&self, n: u32) -> (i64, u64, u32) {
        let node = &self.nodes[n as usize];
        let mut mv = node.vruntime;
        let mut ms = node.slice;
        let mut best = n;
        for ch in [node.left, node.right] {
            if ch != NIL {
                let c = &self.nodes[ch as usize];
                if before(c.min_vruntime, mv) {
                    mv = c.min_vruntime;
                }
                ms = ms.min(c.min_slice);
                if self.track_best {
                    best = self.earlier(best, c.best);
                }
            }
        }
        (mv, ms, best)
    }

    /// Recomputes a node's augmented values.
    fn pull(&mut self, n: u32) {
        let (mv, ms, best) = self.augmented(n);
        let node = &mut self.nodes[n as usize];
        node.min_vruntime = mv;
        node.min_slice = ms;
        node.best = best;
    }

    /// Splits the subtree at `t` into the nodes before `p` and the rest.
    fn split(&mut self, t: u32, p: u32) -> (u32, u32) {
        if t == NIL {
            return (NIL, NIL);
        }
        if self.less(t, p) {
            let (l, r) = self.split(self.nodes[t as usize].right, p);
            self.nodes[t as usize].right = l;
            self.pull(t);
            (t, r)
        } else {
            let (l, r) = self.split(self.nodes[t as usize].left, p);
            self.nodes[t as usize].left = r;
            self.pull(t);
            (l, t)
        }
    }

    /// Joins two subtrees, every node of `a` before every node of `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        if a == NIL {
            return b;
        }
        if b == NIL {
            return a;
        }
        if self.nodes[a as usize].prio > self.nodes[b as usize].prio {
            let r = self.merge(self.nodes[a as usize].right, b);
            self.nodes[a as usize].right = r;
            self.pull(a);
            a
        } else {
            let l = self.merge(a, self.nodes[b as usize].left);
            self.nodes[b as usize].left = l;
            self.pull(b);
            b
        }
    }

    /// Puts node `n` (its keys set, no children) into the tree. On the way down, each node `n`
    /// will sit below takes `n`'s keys into its augmented values, an O(1) update since a
    /// subtree's minimums only fall when a node joins it; where `n`'s priority puts it above
    /// the remaining subtree, that subtree is split around `n` and becomes its children.
    fn link(&mut self, n: u32) {
        let (prio, v, slice) = {
            let x = &self.nodes[n as usize];
            (x.prio, x.vruntime, x.slice)
        };
        let mut parent = NIL;
        let mut left = false;
        let mut t = self.root;
        while t != NIL && prio <= self.nodes[t as usize].prio {
            let best = if self.track_best {
                self.earlier(self.nodes[t as usize].best, n)
            } else {
                t
            };
            left = self.less(n, t);
            let node = &mut self.nodes[t as usize];
            if before(v, node.min_vruntime) {
                node.min_vruntime = v;
            }
            node.min_slice = node.min_slice.min(slice);
            node.best = best;
            parent = t;
            t = if left { node.left } else { node.right };
        }
        let (l, r) = self.split(t, n);
        let node = &mut self.nodes[n as usize];
        node.left = l;
        node.right = r;
        self.pull(n);
        self.attach(parent, left, n);
    }

    /// Takes node `n` out of the tree: its children, merged, take its place, and its ancestors'
    /// augmented values are recomputed upwards until one comes out unchanged (then none above
    /// it can change). The cached leftmost, if it was `n`, becomes its successor: the leftmost
    /// node of what took its place, or its parent.
    fn unlink(&mut self, n: u32) {
        let mut path = core::mem::take(&mut self.path);
        path.clear();
        let mut t = self.root;
        while t != n && t != NIL {
            path.push(t);
            t = if self.less(n, t) {
                self.nodes[t as usize].left
            } else {
                self.nodes[t as usize].right
            };
        }
        debug_assert!(t == n, "node {n} is not in the tree");
        if t == n {
            let node = self.nodes[n as usize];
            let m = self.merge(node.left, node.right);
            let parent = path.last().copied().unwrap_or(NIL);
            let left = parent != NIL && self.nodes[parent as usize].left == n;
            self.attach(parent, left, m);
            if self.leftmost == n {
                let mut l = m;
                while l != NIL && self.nodes[l as usize].left != NIL {
                    l = self.nodes[l as usize].left;
                }
                self.leftmost = if l == NIL { parent } else { l };
            }
            for &p in path.iter().rev() {
                let new = self.augmented(p);
                let node = &mut self.nodes[p as usize];
                if new == (node.min_vruntime, node.min_slice, node.best) {
                    break;
                }
                (node.min_vruntime, node.min_slice, node.best) = new;
            }
        }
        self.path = path;
    }

    /// Makes `n` the left (`left`) or right child of `parent`, or the root when `parent` is
    /// `NIL`.
    fn attach(&mut self, parent: u32, left: bool, n: u32) {
        if parent == NIL {
            self.root = n;
        } else if left {
            self.nodes[parent as usize].left = n;
        } else {
            self.nodes[parent as usize].right = n;
        }
    }

    /// The tree's own invariants: order, heap priorities, augmented values, the cached
    /// leftmost, the count, the slot table, and that each node's cached keys are its entity's
    /// (`keys(tid)`).
    pub fn check(&self, keys: impl Fn(Tid) -> Keys) -> Result<(), String> {
        let mut count = 0u32;
        let mut prev = NIL;
        let mut first = NIL;
        // In-order walk with an explicit stack (bounded by the node count).
        let mut stack: Vec<u32> = Vec::new();
        let mut n = self.root;
        loop {
            while n != NIL {
                if stack.len() > self.nodes.len() {
                    return Err(format!("tree: a cycle below node {n}"));
                }
                stack.push(n);
                n = self.nodes[n as usize].left;
            }
            let Some(t) = stack.pop() else { break };
            let node = &self.nodes[t as usize];
            count += 1;
            if count > self.len {
                return Err(format!("tree: more nodes than its count {}", self.len));
            }
            if first == NIL {
                first = t;
            }
            if prev != NIL && !self.less(prev, t) {
                return Err(format!(
                    "tree: task {} before task {} out of order",
                    self.nodes[prev as usize].tid + 1,
                    node.tid + 1
                ));
            }
            for ch in [node.left, node.right] {
                if ch != NIL && self.nodes[ch as usize].prio > node.prio {
                    return Err(format!("tree: heap order broken at task {}", node.tid + 1));
                }
            }
            let tid = node.tid as Tid;
            if self.slot.get(tid) != Some(&t) {
                return Err(format!("tree: task {} not in its slot", tid + 1));
            }
            let k = keys(tid);
            let key = if self.by_deadline {
                k.deadline
            } else {
                k.vruntime
            };
            if (k.vruntime, k.deadline, k.slice, k.seq, key)
                != (node.vruntime, node.deadline, node.slice, node.seq, node.key)
            {
                return Err(format!(
                    "tree: task {} changed its vruntime, deadline or slice while queued in the \
                     tree",
                    tid + 1
                ));
            }
            // Augmented values against a recomputation from the children.
            if self.augmented(t) != (node.min_vruntime, node.min_slice, node.best) {
                return Err(format!(
                    "tree: stale min_vruntime/min_slice/best at task {}",
                    tid + 1
                ));
            }
            prev = t;
            n = node.right;
        }
        if count != self.len || first != self.leftmost {
            return Err(format!(
                "tree: {count} nodes for a count of {}, or a stale cached leftmost",
                self.len
            ));
        }
        let slots = self.slot.iter().filter(|&&s| s != NIL).count();
        if slots != count as usize {
            return Err(format!("tree: {slots} slots for {count} nodes"));
        }
        Ok(())
    }
}
