// Reads a JSON array of strings on stdin and prints a JSON array of their
// o200k_base token counts (encode_ordinary) from npm tiktoken.
// Usage: node tiktoken_count.js <path of the tiktoken package>
const { get_encoding } = require(process.argv[2]);
const enc = get_encoding('o200k_base');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const counts = JSON.parse(input).map((s) => enc.encode_ordinary(s).length);
  enc.free();
  process.stdout.write(JSON.stringify(counts) + '\n');
});
