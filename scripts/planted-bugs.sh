#!/usr/bin/env bash
# Plants each of issue 22's six one-line engine bugs in a scratch clone, one at a time,
# runs the tests of ssdlab-core (no golden summary is in that crate) and prints which fail.
# Every bug must fail at least one test (docs/testing.md, "Planted bugs").
clone=${1:?usage: scripts/planted-bugs.sh CLEAN_CLONE_DIR (a scratch clone; its files are reset)}
cd "$clone"
export SSDLAB_TRACES="${SSDLAB_TRACES:-$(pwd)/../shared/traces}"
plant() { # name file python-replacement
  git checkout -q -- .
  python3 - "$2" "$3" "$4" <<'PY'
import sys
p, old, new = sys.argv[1:4]
s = open(p).read()
assert s.count(old) == 1, (p, old, s.count(old))
open(p, 'w').write(s.replace(old, new))
PY
  echo "=== $1"
  git diff | grep '^[-+][^-+]'
  nice cargo test -p ssdlab-core --no-fail-fast 2>&1 | grep -E "^test .* FAILED$|test result" | sed 's/^/  /'
}
E=crates/ssdlab-core/src/engine
plant "channel LIFO" $E/command.rs "if let Some(next) = ch.waiting.pop_front() {" "if let Some(next) = ch.waiting.pop_back() {"
plant "request completes at its first sub-request" $E/host.rs "        r.pending -= 1;
        if r.pending > 0 {" "        r.pending -= 1;
        if r.pending + 1 < r.pages {"
plant "multi-plane pairing ignores the equal-address rule" $E/scheduler.rs "if is_write && used_planes & plane_bit == 0 && self.ftl.peek_user(plane) == key {" "if is_write && used_planes & plane_bit == 0 && (true || self.ftl.peek_user(plane) == key) {"
# Read-modify-write: the write is queued with its read instead of after it (two edits).
git checkout -q -- .
python3 - <<'PY'
def edit(p, old, new):
    s = open(p).read()
    assert s.count(old) == 1, (p, old)
    open(p, "w").write(s.replace(old, new))
old = """                            let txn = self.alloc_txn(TxnKind::UpdateRead, slot, lpn, old, plane);
                            let die = self.ftl.addr.die_of_plane(plane);
                            self.dies[die as usize].reads.push_back(txn);"""
edit("crates/ssdlab-core/src/engine/host.rs", old, old + """
                            let wdie = self.enqueue_write(slot, lpn, 0)?;
                            self.kick_list.push(wdie);""")
edit("crates/ssdlab-core/src/engine/command.rs", """                self.flash_counters.update_reads += 1;
                let die = self.enqueue_write(txn.request, txn.lpn, 0)?;
                self.kick(die)""", """                self.flash_counters.update_reads += 1;
                Ok(())""")
PY
echo "=== read-modify-write: the write no longer waits for its read"
git diff | grep '^[-+][^-+]'
nice cargo test -p ssdlab-core --no-fail-fast 2>&1 | grep -E "^test .* FAILED$|test result" | sed 's/^/  /'
plant "one-shot program delay halved" $E/scheduler.rs "let delay = self.timing.program_delay_ns;" "let delay = self.timing.program_delay_ns / 2;"
plant "GC erases a block holding a valid page" crates/ssdlab-core/src/ftl/gc.rs "        if self.blocks[victim as usize].valid_pages == 0 {" "        if self.blocks[victim as usize].valid_pages <= 1 {"
git checkout -q -- .
git checkout -q -- .
