// Native against wasm, and schedlab against SchedLinSim. Run by scripts/bench-wasm.sh.
//
//   node compare.mjs PKG [--iterations N] [--schedlinsim DIR] [FILE.json]...
//
// PKG is the wasm-bindgen `--target nodejs` build of crates/node. For each scenario file
// (default: scenarios/bench/mixed-8cpu.json) every variant runs natively (`schedlab bench
// FILE`, the binary named by $SCHEDLAB) and in Node (`bench()` of the wasm build), both
// keeping the full trace, and one row per variant gives both rates in events per second and
// their ratio. Events are counted the same way on both sides: the engine's events, which are
// identical natively and in wasm (scripts/check-node.sh).
//
// With --schedlinsim DIR (the `simulator/` directory of a SchedLinSim checkout; nothing of it
// is bundled here), one CPU with ten CPU hogs runs for 10 s of simulated time in SchedLinSim's
// LinuxFairClass and in schedlab's wasm build (cfs-6.1, HZ=1000), and the rates are compared
// as simulated seconds per wall-clock second (the two count events differently).
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";

const args = process.argv.slice(2);
const require = createRequire(import.meta.url);
const usage = "usage: node compare.mjs PKG [--iterations N] [--schedlinsim DIR] [FILE.json]...";
if (args.length === 0 || args[0].startsWith("-")) {
  console.error(usage);
  process.exit(2);
}
const wasm = require(path.resolve(args.shift()));
let iterations = 3;
let schedlinsim = null;
const files = [];
while (args.length) {
  const a = args.shift();
  if (a === "--iterations") iterations = Number(args.shift());
  else if (a === "--schedlinsim") schedlinsim = args.shift();
  else if (a.startsWith("-")) {
    console.error(`unknown option ${a}\n${usage}`);
    process.exit(2);
  } else files.push(a);
}
if (!Number.isInteger(iterations) || iterations < 1) {
  console.error("--iterations takes a positive whole number");
  process.exit(2);
}
if (files.length === 0 && !schedlinsim) files.push("scenarios/bench/mixed-8cpu.json");
const schedlab = process.env.SCHEDLAB || "schedlab";

// `schedlab bench`'s rows: preset, variant, events, simulated ms, wall ms, events/s. The
// best of `iterations` runs, as on the wasm side.
function native(file) {
  const best = new Map();
  for (let i = 0; i < iterations; i++) {
    const out = execFileSync(schedlab, ["bench", file], { encoding: "utf8" });
    for (const line of out.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 6) continue;
      const rate = Number(f[f.length - 1]);
      const key = f[1];
      best.set(key, Math.max(best.get(key) ?? 0, rate));
    }
  }
  return best;
}

function fmt(x) {
  return x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(0)} k`;
}

for (const file of files) {
  const text = fs.readFileSync(file, "utf8");
  const n = native(file);
  // The best of `iterations` single runs per variant.
  const w = new Map();
  for (let i = 0; i < iterations; i++) {
    for (const v of JSON.parse(wasm.bench(text, 1)).variants) {
      const rate = v.ns > 0 ? v.events / (v.ns / 1e9) : 0;
      w.set(v.variant, Math.max(w.get(v.variant) ?? 0, rate));
    }
  }
  console.log(`${path.basename(file)} (best of ${iterations}, full trace kept)`);
  console.log(`  ${"variant".padEnd(40)} ${"native ev/s".padStart(12)} ${"wasm ev/s".padStart(12)} ${"wasm/native".padStart(12)}`);
  for (const [variant, rw] of w) {
    const rn = n.get(variant);
    const ratio = rn ? (rw / rn).toFixed(2) : "—";
    console.log(`  ${variant.padEnd(40)} ${(rn ? fmt(rn) : "—").padStart(12)} ${fmt(rw).padStart(12)} ${ratio.padStart(12)}`);
  }
}

if (schedlinsim) {
  const need = ["redblack.js", "SimulationPresets.js", "SchedLinSim.js", "classes/LinuxFairClass.js"];
  for (const f of need) {
    if (!fs.existsSync(path.join(schedlinsim, f))) {
      console.error(`--schedlinsim ${schedlinsim}: no ${f} there (give the simulator/ directory of a SchedLinSim checkout)`);
      process.exit(2);
    }
  }
  const SIM_S = 10;
  const ctx = vm.createContext({ console: { log() {}, warn() {}, error() {} }, Math, Date });
  for (const f of need) vm.runInContext(fs.readFileSync(path.join(schedlinsim, f), "utf8"), ctx, { filename: f });
  ctx.def = {
    name: "ten hogs", simLen: `${SIM_S}s`, timerTickLen: "1ms", policy: "LinuxFairClass",
    processes: Array.from({ length: 10 }, (_, i) => ({
      pname: `hog${i}`, spawn: "0", behavior: [{ priority: 0, run: "100000s", block: "1ms" }],
    })),
  };
  let sls = Infinity;
  let slsSwitches = 0;
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    const r = vm.runInContext("Simulator.init(def); Simulator.run()", ctx);
    sls = Math.min(sls, Number(process.hrtime.bigint() - t0) / 1e9);
    slsSwitches = r.contextSwitches;
  }
  const scen = JSON.stringify({
    version: 1, name: "ten hogs", cpus: 1, hz: 1000, duration_ms: SIM_S * 1000, seed: 1,
    variants: ["cfs-6.1", "eevdf-6.6"],
    tasks: [{ name: "hog", count: 10, program: [{ run: "forever" }] }],
  });
  console.log(`one CPU, ten hogs, ${SIM_S} s simulated (best of ${iterations})`);
  console.log(`  ${"simulator".padEnd(40)} ${"wall s".padStart(10)} ${"sim s / s".padStart(10)} ${"switches".padStart(10)} ${"vs SchedLinSim".padStart(15)}`);
  console.log(`  ${"SchedLinSim LinuxFairClass".padEnd(40)} ${sls.toFixed(3).padStart(10)} ${(SIM_S / sls).toFixed(0).padStart(10)} ${String(slsSwitches).padStart(10)} ${"1.0×".padStart(15)}`);
  const best = new Map();
  for (let i = 0; i < iterations; i++) {
    for (const v of JSON.parse(wasm.bench(scen, 1)).variants) {
      best.set(v.variant, Math.min(best.get(v.variant) ?? Infinity, v.ns / 1e9));
    }
  }
  const switches = Object.fromEntries(JSON.parse(wasm.hashes(scen)).variants.map((v) => [v.variant, v.switches]));
  for (const [variant, s] of best) {
    const sw = switches[variant] ?? "—";
    console.log(`  ${`schedlab wasm ${variant}`.padEnd(40)} ${s.toFixed(3).padStart(10)} ${(SIM_S / s).toFixed(0).padStart(10)} ${String(sw).padStart(10)} ${`${(sls / s).toFixed(1)}×`.padStart(15)}`);
  }
}
