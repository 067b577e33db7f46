// Every preset in Node (the wasm build of crates/node) against the native command line:
// each variant's trace hash, events and end must be equal. Run by scripts/check-node.sh.
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";

const require = createRequire(import.meta.url);
const wasm = require(process.argv[2]);
const schedlab = process.env.SCHEDLAB;

let failed = 0;
let compared = 0;
for (const name of JSON.parse(wasm.presets())) {
  const node = JSON.parse(wasm.hashes(wasm.preset_json(name)));
  const native = JSON.parse(
    execFileSync(schedlab, ["run", "--preset", name, "--format", "json"], {
      encoding: "utf8",
      maxBuffer: 256 << 20,
    }),
  );
  if (native.variants.length !== node.variants.length) {
    console.error(`${name}: ${native.variants.length} variants natively, ${node.variants.length} in Node`);
    failed++;
    continue;
  }
  node.variants.forEach((n, i) => {
    const v = native.variants[i];
    const same = v.variant === n.variant && v.trace_hash === n.trace_hash &&
      v.events === n.events && v.end_ns === n.end_ns;
    compared++;
    const line = `${name} ${n.variant}: ${n.trace_hash} ${n.events} events`;
    if (same) {
      console.log(`same   ${line}`);
    } else {
      failed++;
      console.error(`DIFFER ${line}; native ${v.variant} ${v.trace_hash} ${v.events} events, end ${v.end_ns} vs ${n.end_ns}`);
    }
  });
}
if (failed > 0 || compared === 0) {
  console.error(`node determinism: ${failed} of ${compared} runs differ`);
  process.exit(1);
}
console.log(`node determinism: ${compared} runs of every preset, native = wasm in Node`);
