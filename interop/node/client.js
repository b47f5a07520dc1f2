'use strict'
// A node-spdy (spdy@4.0.2) client for spdylab's interop tests. All requests
// travel over ONE SPDY session (one spdy agent).
//
//   node client.js --url https://127.0.0.1:PORT [--plain] [--protocol spdy/3.1]
//                  [--checks get,upload,concurrent,push,slow] [--push-path /push.html]
//                  [--pushed-path /pushed.js --pushed-size N (--pushed-seed S | --pushed-sha256 HEX)]
//                  [--window BYTES] [--timeout MS]
//
// Prints one JSON object: {"ok": bool, "checks": {name: {...ok, details}}}.
// Exit status 0 when every check passed, 1 otherwise.
const http = require('http')
const https = require('https')
const crypto = require('crypto')
const spdy = require('spdy')
const { detBytes, sha256, parseArgs } = require('./lab.js')

const args = parseArgs(process.argv.slice(2), ['plain'])
if (!args.url) {
  console.error('client.js: --url is required')
  process.exit(2)
}
const base = new URL(args.url)
const plain = !!args.plain
const protocol = args.protocol || 'spdy/3.1'
const checks = (args.checks || 'get,upload,concurrent,push,slow').split(',')

const agent = spdy.createAgent({
  host: base.hostname,
  port: Number(base.port),
  rejectUnauthorized: false, // the lab's certificates are throw-away self-signed ones
  // --window sets node-spdy's receive windows (stream and session; its
  // default is 1 MiB) so that a test can make flow control gate the server.
  spdy: { plain, ssl: !plain, protocols: [protocol], protocol, connection: args.window ? { windowSize: Number(args.window) } : {} }
})
let agentError = null
// A session-level error (e.g. a frame node-spdy cannot parse) leaves every
// pending request hanging; this promise turns it into a prompt failure.
let rejectOnAgentError
const agentFailed = new Promise((resolve, reject) => { rejectOnAgentError = reject })
agentFailed.catch(() => {})
agent.on('error', (err) => {
  agentError = err
  rejectOnAgentError(new Error('session error: ' + err.message))
})
agent.setMaxListeners(0) // one listener per request waiting for the session
const mod = plain ? http : https

// request performs one request and collects the body (or lets onResponse
// consume it). It resolves to {status, headers, body, pushes}.
function request (method, path, { onResponse, onPush, headers } = {}) {
  return new Promise((resolve, reject) => {
    const req = mod.request({
      agent, method, path, host: base.hostname, port: Number(base.port), headers: headers || {}
    }, (res) => {
      if (onResponse) {
        onResponse(res, resolve, reject)
        return
      }
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    if (onPush) req.on('push', onPush)
    req.on('error', reject)
    req.end()
  })
}

// session resolves to the agent's spdy-transport connection once it is up.
function session () {
  return new Promise((resolve) => {
    if (agent._spdyState.connection) resolve(agent._spdyState.connection)
    else agent.once('_connect', () => resolve(agent._spdyState.connection))
  })
}

// upload sends a body on a stream of the agent's spdy-transport session.
// node-spdy 4.0.2's http.request path cannot carry a request body on
// current Node (handle-thing's writev dereferences the SPDY stream before it
// exists), so uploads use the session API of the same library directly.
function upload (method, path, body, headers) {
  return session().then((conn) => new Promise((resolve, reject) => {
    {
      const stream = conn.request({
        method, path, host: base.host, headers: Object.assign({ 'content-length': String(body.length) }, headers || {})
      }, (err) => { if (err) reject(err) })
      let status = 0; let rheaders = {}
      const chunks = []
      stream.on('response', (code, h) => { status = code; rheaders = h })
      stream.on('data', (c) => chunks.push(c))
      stream.on('end', () => resolve({ status, headers: rheaders, body: Buffer.concat(chunks) }))
      stream.on('error', reject)
      stream.end(body)
    }
  }))
}

const results = {}

async function checkGet () {
  const n = 3 << 20; const seed = 11
  const r = await request('GET', '/_spdylab/bytes?n=' + n + '&seed=' + seed)
  const got = sha256(r.body)
  const want = sha256(detBytes(n, seed))
  return {
    ok: r.status === 200 && r.body.length === n && got === want,
    status: r.status, length: r.body.length, sha256: got, want_sha256: want,
    content_length: r.headers['content-length'] || null
  }
}

async function checkUpload () {
  const n = 2 << 20
  const payload = detBytes(n, 23)
  const want = sha256(payload)
  const r = await upload('POST', '/_spdylab/sha256', payload, { 'content-type': 'application/octet-stream' })
  let reply = {}
  try { reply = JSON.parse(r.body.toString()) } catch (e) { reply = { parse_error: e.message, raw: r.body.toString().slice(0, 200) } }
  return { ok: r.status === 200 && reply.sha256 === want && reply.length === n, status: r.status, sent_sha256: want, reply }
}

// checkConcurrent issues 50 requests at once over the one session; sizes
// vary so that streams interleave and finish out of order.
async function checkConcurrent () {
  const jobs = []
  for (let i = 0; i < 50; i++) {
    const n = 1000 + i * 7919
    jobs.push(request('GET', '/_spdylab/bytes?n=' + n + '&seed=' + (100 + i)).then((r) => ({
      i, ok: r.status === 200 && r.body.length === n && sha256(r.body) === sha256(detBytes(n, 100 + i)), status: r.status, length: r.body.length
    })))
  }
  const all = await Promise.all(jobs)
  const bad = all.filter((x) => !x.ok)
  return { ok: bad.length === 0, streams: all.length, failed: bad.slice(0, 5) }
}

// checkPush loads a page whose server pushes a resource, keeps the pushed
// body, and then uses it in place of requesting it.
async function checkPush () {
  const pushPath = args['push-path'] || '/push.html'
  const pushedPath = args['pushed-path'] || '/pushed.js'
  const pushedSize = Number(args['pushed-size'] || 100000)
  const pushedSeed = Number(args['pushed-seed'] || 7)
  const pushes = []
  const pushDone = []
  const r = await request('GET', pushPath, {
    onPush: (stream) => {
      const p = { path: stream.path, request_headers: stream.headers, status: null, response_headers: null, length: 0, sha256: null }
      pushes.push(p)
      pushDone.push(new Promise((resolve) => {
        const chunks = []
        stream.on('response', (status, headers) => { p.status = status; p.response_headers = headers })
        stream.on('data', (c) => chunks.push(c))
        stream.on('end', () => { const b = Buffer.concat(chunks); p.length = b.length; p.sha256 = sha256(b); resolve() })
        stream.on('error', (e) => { p.error = e.message; resolve() })
      }))
    }
  })
  await Promise.all(pushDone)
  const used = pushes.find((p) => p.path === pushedPath)
  // A site written by spdylab's page package has its own bytes: the caller
  // then passes their hash instead of a generator seed.
  const want = args['pushed-sha256'] || sha256(detBytes(pushedSize, pushedSeed))
  const html = r.body.toString()
  return {
    ok: r.status === 200 && !!used && used.sha256 === want && used.length === pushedSize && html.includes(pushedPath),
    status: r.status, pushes, want_sha256: want, page_references_pushed: html.includes(pushedPath)
  }
}

// checkSlow opens several large responses at once and reads them slowly:
// node-spdy only sends WINDOW_UPDATE as the application consumes data, so
// the server can finish only if it honours both the stream windows and the
// session window and resumes on every update. It reads the session's
// spdy-transport streams directly: through http.request, handle-thing
// reports a spurious ECONNRESET when a stream closes while its socket wrapper
// is reading, which pausing and resuming provokes.
async function checkSlow () {
  const streams = 8; const n = 400 << 10
  const conn = await session()
  const jobs = []
  for (let i = 0; i < streams; i++) {
    const seed = 500 + i
    jobs.push(new Promise((resolve, reject) => {
      const stream = conn.request({ method: 'GET', path: '/_spdylab/bytes?n=' + n + '&seed=' + seed, host: base.host, headers: {} }, (err) => { if (err) reject(err) })
      let status = 0
      const h = crypto.createHash('sha256'); let len = 0
      stream.on('response', (code) => { status = code })
      stream.on('data', (c) => {
        h.update(c); len += c.length
        stream.pause()
        setTimeout(() => stream.resume(), 2)
      })
      stream.on('end', () => resolve({ i, status, length: len, ok: status === 200 && len === n && h.digest('hex') === sha256(detBytes(n, seed)) }))
      stream.on('error', reject)
      stream.end()
    }))
  }
  const all = await Promise.all(jobs)
  const bad = all.filter((x) => !x.ok)
  return { ok: bad.length === 0, streams, bytes_each: n, failed: bad }
}

const table = { get: checkGet, upload: checkUpload, concurrent: checkConcurrent, push: checkPush, slow: checkSlow }

async function main () {
  let ok = true
  for (const name of checks) {
    const fn = table[name]
    if (!fn) {
      results[name] = { ok: false, error: 'unknown check' }
      ok = false
      continue
    }
    try {
      results[name] = await Promise.race([fn(), agentFailed])
    } catch (e) {
      results[name] = { ok: false, error: String(e && e.message ? e.message : e) }
    }
    if (agentError) results[name].agent_error = agentError.message
    ok = ok && results[name].ok
  }
  finished = true
  report({ ok, protocol, plain, checks: results })
  clearTimeout(deadlineTimer)
  agent.close(() => process.exit(ok ? 0 : 1))
  setTimeout(() => process.exit(ok ? 0 : 1), 2000).unref()
}

let reported = false
function report (obj) {
  if (reported) return
  reported = true
  process.stdout.write(JSON.stringify(obj) + '\n')
}
const deadline = Number(args.timeout || 60000)
const deadlineTimer = setTimeout(() => {
  report({ ok: false, protocol, plain, error: 'timed out after ' + deadline + ' ms', checks: results })
  process.exit(1)
}, deadline)
// Node exits by itself when nothing is left to wait for, e.g. when the
// session died under a pending request: say so instead of printing nothing.
process.on('exit', (code) => {
  report({ ok: false, protocol, plain, error: 'event loop emptied before the checks finished (session lost?)' + (agentError ? ': ' + agentError.message : ''), checks: results })
  if (code === 0 && !finished) process.exitCode = 1
})
let finished = false
main()
