-- wrk script: POST messages as many users to many channels; about 5% of texts hit a rule.
-- Reads its tokens and texts from files the bench script writes (one a line).
local tokens, texts = {}, {}

local function lines(path)
  local result = {}
  for line in io.lines(path) do result[#result + 1] = line end
  return result
end

-- Requests are built once per thread, as wrk's documentation advises: building one for each
-- send costs the load generator CPU that this machine's server would otherwise have.
local requests = {}
local pool = 8192

function init(args)
  tokens = lines(os.getenv("BENCH_TOKENS"))
  texts = lines(os.getenv("BENCH_TEXTS"))
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
  for index = 1, pool do
    local token = tokens[math.random(#tokens)]
    local text = texts[math.random(#texts)]
    local channel = "messaging:c" .. math.random(50)
    requests[index] = wrk.format("POST", "/v1/channels/" .. channel .. "/messages",
      { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
      '{"text":"' .. text .. '"}')
  end
end

function request()
  return requests[math.random(pool)]
end

-- No response() callback: wrk would parse every response's headers into Lua for it. A status
-- outside 2xx/3xx is counted by wrk itself (errors.status, "Non-2xx or 3xx responses").
function done(summary, latency, requests)
  io.write(string.format("send: %.0f messages/s, p50 %.2f ms, p99 %.2f ms, errors %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
