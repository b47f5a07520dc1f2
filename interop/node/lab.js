'use strict'
// Shared helpers for the node-spdy peers. detBytes must produce exactly the
// stream of server.DeterministicReader in spdylab's Go server package:
// xorshift32 seeded with seed*0x9E3779B1+1, each state written little-endian.
const crypto = require('crypto')

function seedState (seed) {
  let x = (Math.imul(seed >>> 0, 0x9E3779B1 | 0) + 1) >>> 0
  if (x === 0) x = 1
  return x
}

function detBytes (n, seed) {
  const buf = Buffer.allocUnsafe(n)
  let x = seedState(seed)
  let i = 0
  for (; i + 4 <= n; i += 4) {
    x = (x ^ (x << 13)) >>> 0
    x = (x ^ (x >>> 17)) >>> 0
    x = (x ^ (x << 5)) >>> 0
    buf.writeUInt32LE(x, i)
  }
  if (i < n) {
    x = (x ^ (x << 13)) >>> 0
    x = (x ^ (x >>> 17)) >>> 0
    x = (x ^ (x << 5)) >>> 0
    const tail = Buffer.alloc(4)
    tail.writeUInt32LE(x, 0)
    tail.copy(buf, i, 0, n - i)
  }
  return buf
}

function sha256 (buf) {
  return crypto.createHash('sha256').update(buf).digest('hex')
}

// parseArgs reads --name value and --flag (boolean) arguments.
function parseArgs (argv, booleans) {
  const out = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (!a.startsWith('--')) throw new Error('unexpected argument ' + JSON.stringify(a))
    const name = a.slice(2)
    if (booleans.includes(name)) {
      out[name] = true
    } else {
      if (i + 1 >= argv.length) throw new Error('flag --' + name + ' needs a value')
      out[name] = argv[++i]
    }
  }
  return out
}

module.exports = { detBytes, sha256, parseArgs }
