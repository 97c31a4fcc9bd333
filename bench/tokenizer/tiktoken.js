// One worker process for bench/tokenizer: npm tiktoken (WASM build of
// OpenAI's Rust core), o200k_base, encode_ordinary. Prints one result line
// in the format of main.go's result.
// Usage: node tiktoken.js <tiktoken package folder> <file or ""> <runs>
const { performance } = require('node:perf_hooks');
const fs = require('node:fs');
const path = require('node:path');

const [pkg, file, runsArg] = process.argv.slice(2);
const { get_encoding } = require(pkg);
const enc = get_encoding('o200k_base');
const count = (s) => enc.encode_ordinary(s).length;
count('hello world');
// performance.now() counts from the process's time origin, so this includes
// node's own start-up, as the Go workers' figure includes theirs
const cpu0 = process.cpuUsage();
const res = { impl: 'tiktoken (npm WASM)', loadMs: performance.now(), loadCpuMs: (cpu0.user + cpu0.system) / 1000, wallMs: [], cpuMs: [] };
if (file) {
  const text = fs.readFileSync(file, 'utf8');
  res.input = path.basename(file);
  res.bytes = Buffer.byteLength(text, 'utf8');
  let t = performance.now();
  res.tokens = count(text);
  res.firstMs = performance.now() - t;
  count(text); // warm-up
  for (let i = 0; i < Number(runsArg); i++) {
    if (global.gc) global.gc();
    const c = process.cpuUsage();
    t = performance.now();
    const n = count(text);
    const wall = performance.now() - t;
    const cu = process.cpuUsage(c);
    if (n !== res.tokens) throw new Error(`count changed from ${res.tokens} to ${n}`);
    res.wallMs.push(wall);
    res.cpuMs.push((cu.user + cu.system) / 1000);
  }
}
enc.free();
process.stdout.write(JSON.stringify(res) + '\n');
