#!/usr/bin/env bash
# Writes the fuzz seed inputs to OUT/<target>/ (default afl-seeds in the repository, ignored by git): the first
# lines of each real trace in shared/traces, small hand-written lines for the formats
# without a real trace, compressed variants, fio job files and the config presets.
# The committed corpus (fuzz/corpus) is these seeds after fuzzing and afl-cmin; see
# docs/testing.md. Usage: fuzz/seeds.sh [OUT [dict]] (dict: also rewrite fuzz/dict/*.dict)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-afl-seeds}"
traces="${SSDLAB_TRACES:-$(pwd)/../shared/traces}"
[ -d "$traces" ] || { echo "error: $traces missing (set SSDLAB_TRACES)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"/{trace_reader,trace_open,fio_job,config}

# Format index (the mode byte's low nibble) = position in ssdlab_trace::Format::ALL.
declare -A index=([ssdsim]=0 [mqsim]=1 [msr]=2 [spc]=3 [disksim]=4 [flashsim]=5 [fiu]=6 [systor]=7
  [blkparse]=8 [fio-v2]=9 [fio-v3]=10 [tencent]=11 [alibaba]=12 [arc]=13 [bytes5]=14)

# seed NAME FORMAT: stdin becomes trace_reader/NAME (strict) and NAME-lenient, and
# trace_open/NAME plain and gzip/zstd/bzip2/xz-compressed.
seed() {
  local name=$1 i=${index[$2]} body
  body=$(mktemp)
  cat >"$body"
  { printf "\\x$(printf %02x "$i")"; cat "$body"; } >"$out/trace_reader/$name"
  { printf "\\x$(printf %02x $((i | 0x10)))"; cat "$body"; } >"$out/trace_reader/$name-lenient"
  { printf "\\x$(printf %02x "$i")"; cat "$body"; } >"$out/trace_open/$name"
  { printf "\\x$(printf %02x "$i")"; gzip -c "$body"; } >"$out/trace_open/$name.gz"
  { printf "\\x$(printf %02x "$i")"; zstd -q -c "$body"; } >"$out/trace_open/$name.zst"
  { printf "\\x$(printf %02x "$i")"; bzip2 -c "$body"; } >"$out/trace_open/$name.bz2"
  { printf "\\x$(printf %02x "$i")"; xz -c "$body"; } >"$out/trace_open/$name.xz"
  rm -f "$body"
}

# Real traces: the first 20 lines (and a tail where the end is special).
head -n 20 "$traces/umass_spc/example.ascii" | seed ssdsim-example ssdsim
head -n 20 "$traces/umass_spc/wsrch-small.trace" | seed mqsim-wsrch mqsim
head -n 20 "$traces/ms_production/tpcc-small.trace" | seed mqsim-tpcc mqsim
head -n 20 "$traces/msr_cambridge/msr-cambridge1-sample.csv" | seed msr-hm0 msr
{ sed -n '11060,11075p' "$traces/msr_cambridge/hm_1_short.csv"; } | seed msr-hm1-empty-rows msr
head -n 20 "$traces/umass_spc/reconstructed_spc/Financial1_first10000.reconstructed.spc" | seed spc-fin1 spc
head -n 20 "$traces/umass_spc/reconstructed_spc/WebSearch1_first24783.reconstructed.spc" | seed spc-wsrch spc
head -n 20 "$traces/umass_spc/fin1.trace" | seed flashsim-fin1 flashsim
head -n 20 "$traces"/fiu/cheetah*.blkparse | seed fiu-cheetah fiu
head -n 20 "$traces/systor17_vdi/systor-traces-sample.csv" | seed systor-vdi systor
head -n 20 "$traces/blkparse_ycsb/blkparseout_ext4.txt" | seed blkparse-ycsb blkparse
tail -n 20 "$traces/blkparse_ycsb/blkparseout_ext4.txt" | seed blkparse-ycsb-summary blkparse

# Formats without a real trace here: the examples of docs/trace-formats.md.
printf '26.214000 0 303574 8 0\n26.5 1 64 16 1\n27 0 0 8 3\n' | seed disksim-doc disksim
printf 'fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda write 0 4096\n/dev/sda wait 250 0\n/dev/sda read 8192 4096\n/dev/sda trim 0 1048576\n/dev/sda sync 0 0\n/dev/sda close\n' |
  seed fio-v2-doc fio-v2
printf 'fio version 3 iolog\n0 /dev/sda add\n2 /dev/sda open\n13 /dev/sda write 0 4096\n270 /dev/sda read 8192 4096\n301 /dev/sda trim 0 1048576\n305 /dev/sda sync 0 0\n320 /dev/sda close\n' |
  seed fio-v3-doc fio-v3
printf 'Timestamp,Offset,Size,IOType,VolumeID\n1538323200,126227368,8,1,1283\n1538323200.5,0,16,0,7\n' | seed tencent-doc tencent
printf 'device_id,opcode,offset,length,timestamp\n419,W,8792731648,4096,1577808000000162\n3,R,0,512,1577808000000200\n' |
  seed alibaba-doc alibaba
printf '303567 7 0 0\n303574 8 0 1\n0 1 0 2\n' | seed arc-doc arc
printf '26.214000 0 155430912 4096 0\n26.5 1 0 65536 1\n27 0 155435008 512 1\n' | seed bytes5-doc bytes5

# fio job files: mode byte 0 = INI, 1 = TOML (bits 1-2 pick the capacity).
fio() { cat >"$out/fio_job/$1"; }
printf '\x00; 70/30 random mix\n[global]\nbs=4k\nsize=8g\nrandseed=42\n\n[oltp]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:8k/30:64k/20\nrandom_distribution=zipf:1.2\niodepth=32\nnumber_ios=200000\n' | fio oltp.fio
printf '\x02[global]\nbs=4k\niodepth=8\n[mix]\nrw=randrw\nrwmixread=70\nbssplit=4k/60:16k/40\nnumber_ios=3000\nrandseed=2\n' | fio mix.fio
printf '\x04[j]\nrw=randrw\nsize=50%%\noffset=10%%\nbssplit=4k/50:64k/50\nrandom_distribution=pareto:0.2\nnumber_ios=1000\nhint_split=0/10:3/90\n' | fio pareto.fio
printf '\x06[w]\nrw=randwrite\nbsrange=1k-64k\nblockalign=4k\nrandom_distribution=zoned:60/10:30/20:10/70\npercentage_random=80\nrate_iops=1000\nruntime=2\nthinktime=10\nthinktime_blocks=4\nburst_ios=100\nburst_idle=5ms\n' | fio zoned.fio
printf '\x00[t]\nrw=trim\nbs=1m\nio_size=64m\nloops=2\nkb_base=1000\nrandom_distribution=zoned_abs:50/1g:50/2g\nrank_scramble=0\nprio=3\n' | fio trim.fio
printf '\x00[g]\nrw=randread\nbs=4k,8k\nrandom_distribution=normal:10\ntime_based\nruntime=1s\nioengine=libaio\ndirect=1\nfilename=/dev/nvme0n1\n' | fio timed.fio
printf '\x01rw = "randrw"\nbs = "4k"\n[global]\nrandseed = 7\n[job]\nrwmixwrite = 30\nnumber_ios = 500\nrandom_distribution = "zipf:0.8"\n' | fio job.toml

# Config: every preset, and one with --set overrides after a NUL byte.
for p in crates/ssdlab-core/presets/*.toml; do cp "$p" "$out/config/$(basename "$p")"; done
{ cat crates/ssdlab-core/presets/small-tlc.toml; printf '\0geometry.channels=4\nftl.over_provisioning=0.2\nhost.replay="closed-loop"\nseed=9\n'; } >"$out/config/small-tlc-set"
printf 'name = "w"\n[workload]\nread_fraction = 0.5\nblock_size_bytes = 4096\ncount = 100\npattern = "sequential"\n' >"$out/config/workload.toml"
printf '\0geometry.pages_per_block=64\nworkload=1\n' >"$out/config/set-only"

echo "seeds in $out: $(find "$out" -type f | wc -l) files, $(du -sh "$out" | cut -f1)"

# AFL dictionaries (committed as fuzz/dict/*.dict; regenerate with `fuzz/seeds.sh OUT dict`):
# config sections, keys and quoted enum values from docs/config.md; fio job keys from the
# key tables in crates/ssdlab-trace/src/fio.rs.
if [ "${2:-}" = dict ]; then
  mkdir -p fuzz/dict
  {
    grep -oE '^## `\[[a-z_]+\]`' docs/config.md | grep -oE '\[[a-z_]+\]' | sort -u | sed 's/.*/"&"/'
    grep -oE '^\| `[a-z_]+`' docs/config.md | grep -oE '[a-z_]+' | sort -u | sed 's/.*/"& = "/'
    grep -oE '`"[a-z0-9-]+"`' docs/config.md | tr -d '`' | sort -u | sed 's/"/\\"/g; s/.*/"&"/'
    printf '"%s"\n' '\x00' '=' '.' 'true' 'false' '[' ']' '{' '}'
  } >fuzz/dict/config.dict
  {
    grep -oE '^//! \| `[a-z_]+`( / `[a-z_]+`)*' crates/ssdlab-trace/src/fio.rs | grep -oE '`[a-z_]+`' | tr -d '`' | sort -u |
      sed 's/.*/"&="/'
    printf '"%s"\n' '[global]' 'zipf:' 'pareto:' 'normal:' 'zoned:' 'zoned_abs:' 'randrw' 'randread' 'randwrite' \
      'randtrim' 'readwrite' 'trim' '4k' '1m' '1g' '%' '/' ':'
  } >fuzz/dict/fio.dict
  echo "dictionaries: $(wc -l <fuzz/dict/config.dict) config and $(wc -l <fuzz/dict/fio.dict) fio entries"
fi
