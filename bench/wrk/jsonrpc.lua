-- wrk script: POST one JSON-RPC message to /mcp on every request, as an MCP client does.
--
-- Environment (read once per thread):
--   BENCH_BODY      the JSON-RPC message (e.g. a tools/call of get_user_context)
--   BENCH_TOKEN     bearer token (optional: the floors and the anchor take none)
--   BENCH_HEADERS   the MCP headers, one "Name: value" per line (MCP-Protocol-Version, and for
--                   2026-07-28 Mcp-Method and Mcp-Name)
-- At the end one line is printed: "BENCH_JSON {...}" with the request count,
-- duration, errors (connect/read/write/timeout, and non-2xx statuses) and
-- latency percentiles in microseconds, for bench/run.py to parse.

wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
for line in (os.getenv("BENCH_HEADERS") or ""):gmatch("[^\n]+") do
  local name, value = line:match("^([^:]+):%s*(.*)$")
  wrk.headers[name] = value
end
local token = os.getenv("BENCH_TOKEN")
if token and token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p95":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(95), latency:percentile(99),
    latency.max, latency.mean))
end
