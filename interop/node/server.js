'use strict'
// A node-spdy (spdy@4.0.2) server for spdylab's interop tests and benchmark.
//
//   node server.js [--plain] [--port N] [--host H] [--cert F --key F] [--protocol spdy/3.1]
//                  [--window BYTES]
//
// Prints {"port": N, "protocol": ...} on stdout once listening. Routes mirror
// the lab endpoints of spdylab's Go server so the same checks run against both:
//   GET  /_spdylab/bytes?n=N&seed=S   N deterministic bytes (lab.js detBytes)
//   POST /_spdylab/sha256             {"sha256", "length", "protocol"} of the body
//   ANY  /_spdylab/info               what node-spdy saw of the request
//   GET  /push.html                   pushes /pushed.js (100000 bytes, seed 7) and
//                                     answers an HTML page that references it
// SIGTERM/SIGINT close the server and exit.
const fs = require('fs')
const spdy = require('spdy')
const { detBytes, sha256, parseArgs } = require('./lab.js')

const args = parseArgs(process.argv.slice(2), ['plain'])
const protocol = args.protocol || 'spdy/3.1'
const plain = !!args.plain

// Cache generated bodies: the benchmark asks for the same few sizes many times
// and generating in JavaScript would otherwise dominate node's cost.
const bodies = new Map()
function body (n, seed) {
  const key = n + '/' + seed
  let b = bodies.get(key)
  if (!b) {
    b = detBytes(n, seed)
    if (n <= 64 << 20) bodies.set(key, b)
  }
  return b
}

const PUSHED_PATH = '/pushed.js'
const PUSHED_SIZE = 100000
const PUSHED_SEED = 7

function proto (req) {
  if (!req.isSpdy) return 'http/1.1'
  return req.spdyVersion === 3.1 ? 'spdy/3.1' : 'spdy/' + req.spdyVersion
}

function sendJSON (res, obj) {
  const b = Buffer.from(JSON.stringify(obj) + '\n')
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': b.length })
  res.end(b)
}

function handler (req, res) {
  const url = new URL(req.url, 'http://x')
  if (url.pathname === '/_spdylab/bytes') {
    const n = Number(url.searchParams.get('n'))
    const seed = Number(url.searchParams.get('seed') || '0')
    if (!Number.isInteger(n) || n < 0 || n > (1 << 30) || !Number.isInteger(seed) || seed < 0) {
      res.writeHead(400, { 'content-type': 'text/plain' })
      res.end('bad n or seed\n')
      return
    }
    const b = body(n, seed)
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': b.length })
    res.end(b)
    return
  }
  if (url.pathname === '/_spdylab/sha256' || url.pathname.startsWith('/_spdylab/sha256/')) {
    const h = require('crypto').createHash('sha256')
    let length = 0
    req.on('data', (c) => { h.update(c); length += c.length })
    req.on('end', () => sendJSON(res, { sha256: h.digest('hex'), length, protocol: proto(req) }))
    return
  }
  if (url.pathname === '/_spdylab/info') {
    req.resume()
    req.on('end', () => sendJSON(res, {
      protocol: proto(req), method: req.method, path: req.url, host: req.headers.host || '', header: req.headers
    }))
    return
  }
  if (url.pathname === '/push.html') {
    const pushed = body(PUSHED_SIZE, PUSHED_SEED)
    if (res.push) {
      const stream = res.push(PUSHED_PATH, {
        request: { accept: '*/*' },
        response: { 'content-type': 'application/javascript', 'content-length': pushed.length }
      })
      stream.on('error', () => {}) // a client may refuse the push (RST_STREAM CANCEL)
      stream.end(pushed)
    }
    const html = Buffer.from('<!doctype html><title>push</title><script src="' + PUSHED_PATH + '"></script>\n')
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': html.length })
    res.end(html)
    return
  }
  if (url.pathname === PUSHED_PATH) {
    const pushed = body(PUSHED_SIZE, PUSHED_SEED)
    res.writeHead(200, { 'content-type': 'application/javascript', 'content-length': pushed.length })
    res.end(pushed)
    return
  }
  res.writeHead(404, { 'content-type': 'text/plain' })
  res.end('not found: ' + url.pathname + '\n')
}

// Without TLS there is no ALPN to say 3 or 3.1 (both put version 3 in their
// frames): autoSpdy31 makes node-spdy treat the session as 3.1 (session flow
// control) as soon as the client sends a session-level WINDOW_UPDATE.
// --window sets node-spdy's receive windows (stream and session; default
// 1 MiB) so that uploads are gated by both levels of flow control.
const connection = { autoSpdy31: protocol === 'spdy/3.1' }
if (args.window) connection.windowSize = Number(args.window)
const options = {
  spdy: { protocols: [protocol], plain, protocol, 'x-forwarded-for': false, connection }
}
if (!plain) {
  if (!args.cert || !args.key) {
    console.error('server.js: TLS mode needs --cert and --key (or use --plain)')
    process.exit(2)
  }
  options.cert = fs.readFileSync(args.cert)
  options.key = fs.readFileSync(args.key)
}
const server = spdy.createServer(options, handler)
server.on('error', (err) => { console.error('server.js:', err.message); process.exit(1) })
server.listen(Number(args.port || 0), args.host || '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port, protocol, plain }) + '\n')
})
function stop () { server.close(); process.exit(0) }
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
