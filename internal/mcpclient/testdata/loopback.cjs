// Preloaded into Node peers started by the tests (node --require): any
// server that listens on a bare port listens on 127.0.0.1 only.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  const isPort = typeof port === "number" || (typeof port === "string" && port !== "" && !isNaN(Number(port)));
  if (isPort && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  return listen.apply(this, args);
};
