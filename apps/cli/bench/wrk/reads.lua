-- The Go client's reads (../go-client) for wrk, a load generator we did not write: every
-- connection calls on one 2025-era session (its id in SESSION, opened by peers.mjs), a random
-- key per request, the same sequence for every server (seeded alike).
--   TOOLS     ours (query), faucet (faucet_query), sql (execute_sql with SELECTs, as DBHub takes them)
--   WORKLOAD  query-point | query-fk | top50 | filtered (one of five shapes a call) | one shape:
--             f-status-total, f-fk, f-status-since, f-fk-between, f-total-between
--   ORDERS, CUSTOMERS  the key ranges;  PROTOCOL_VERSION  the session's revision
--   CHECK=1   read every answer and print how many were not a tool's rows (slower: warm-up only)
local session = os.getenv("SESSION") or ""
local tools = os.getenv("TOOLS") or "ours"
local workload = os.getenv("WORKLOAD") or "query-point"
local orders = tonumber(os.getenv("ORDERS") or "6000")
local customers = tonumber(os.getenv("CUSTOMERS") or "2000")

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["Mcp-Protocol-Version"] = os.getenv("PROTOCOL_VERSION") or "2025-06-18"
if session ~= "" then wrk.headers["Mcp-Session-Id"] = session end

local f = string.format
local sql = function(text) return "execute_sql", f('{"sql":"%s"}', text) end

-- The five filtered shapes (../go-client/filtered.go): filter strings as Faucet's users write
-- them, limit 25, no order; timestamps ISO-8601 for our query, a date for Faucet and SQL.
local statuses = { "pending", "paid", "shipped", "delivered", "cancelled", "refunded" }
local function day(iso)
  local t = os.time({ year = 2021, month = 1, day = 1, hour = 12 }) + (math.random(5 * 365 - 30) - 1) * 86400
  return os.date(iso and "!%Y-%m-%dT00:00:00Z" or "!%Y-%m-%d", t)
end
local shapes = {
  ["f-status-total"] = function() return f("status = '%s' AND total > %d", statuses[math.random(#statuses)], math.random(5000) - 1) end,
  ["f-fk"] = function() return f("customer_id = %d", math.random(customers)) end,
  ["f-status-since"] = function(iso) return f("status = '%s' AND placed_at >= '%s'", statuses[math.random(#statuses)], day(iso)) end,
  ["f-fk-between"] = function() local c = math.random(customers) return f("customer_id BETWEEN %d AND %d", c, c + 9) end,
  ["f-total-between"] = function() local a = math.random(5000) - 1 return f("total BETWEEN %d AND %d", a, a + 500) end,
}
local shapeNames = { "f-status-total", "f-fk", "f-status-since", "f-fk-between", "f-total-between" }
local function condition(iso)
  local shape = shapes[workload] or shapes[shapeNames[math.random(#shapeNames)]]
  return shape(iso)
end

local calls = {
  ours = {
    ["query-point"] = function() return "query", f('{"table":"orders","filter":"id = %d","limit":1}', math.random(orders)) end,
    ["query-fk"] = function() return "query", f('{"table":"orders","filter":"customer_id = %d","limit":20}', math.random(customers)) end,
    top50 = function() return "query", '{"table":"orders","order_by":["placed_at desc"],"limit":50}' end,
    filtered = function() return "query", f('{"table":"orders","filter":"%s","limit":25}', condition(true)) end,
  },
  -- Faucet has no read by key; it is asked for our query's order (ours sorts by the key)
  faucet = {
    ["query-point"] = function() return "faucet_query", f('{"service":"main","table":"orders","filter":"id = %d","limit":1}', math.random(orders)) end,
    ["query-fk"] = function() return "faucet_query", f('{"service":"main","table":"orders","filter":"customer_id = %d","order":"id asc","limit":20}', math.random(customers)) end,
    top50 = function() return "faucet_query", '{"service":"main","table":"orders","order":"placed_at desc","limit":50}' end,
    filtered = function() return "faucet_query", f('{"service":"main","table":"orders","filter":"%s","limit":25}', condition(false)) end,
  },
  sql = {
    ["query-point"] = function() return sql(f("SELECT * FROM orders WHERE id = %d", math.random(orders))) end,
    ["query-fk"] = function() return sql(f("SELECT * FROM orders WHERE customer_id = %d ORDER BY id LIMIT 20", math.random(customers))) end,
    top50 = function() return sql("SELECT * FROM orders ORDER BY placed_at DESC, id LIMIT 50") end,
    filtered = function() return sql(f("SELECT * FROM orders WHERE %s LIMIT 25", condition(false))) end,
  },
}
local call = calls[tools] and calls[tools][shapes[workload] and "filtered" or workload]
if not call then error("reads.lua: no " .. workload .. " for TOOLS=" .. tools) end

math.randomseed(1)
local n = 0
request = function()
  n = n + 1
  local name, arguments = call()
  local body = f('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}', n, name, arguments)
  return wrk.format(nil, nil, nil, body)
end

if os.getenv("CHECK") == "1" then
  local threads = {}
  function setup(thread) table.insert(threads, thread) end
  good, bad = 0, 0
  -- a tool's answer carries content; a JSON-RPC error or a tool error does not count
  response = function(status, headers, body)
    if status == 200 and body:find('"content"', 1, true) and not body:find('"isError":true', 1, true) then
      good = good + 1
    else
      bad = bad + 1
    end
  end
  function done()
    local g, b = 0, 0
    for _, t in ipairs(threads) do g, b = g + t:get("good"), b + t:get("bad") end
    io.write(f("reads.lua: %d good, %d bad\n", g, b))
  end
end
