-- wrk script: POST messages as many users to many channels; about 5% of texts hit a rule.
-- Reads its tokens and texts from files the bench script writes (one a line).
local tokens, texts = {}, {}

local function lines(path)
  local result = {}
  for line in io.lines(path) do result[#result + 1] = line end
  return result
end

function init(args)
  tokens = lines(os.getenv("BENCH_TOKENS"))
  texts = lines(os.getenv("BENCH_TEXTS"))
  math.randomseed(os.time() + math.floor(os.clock() * 1000000))
end

function request()
  local token = tokens[math.random(#tokens)]
  local text = texts[math.random(#texts)]
  local channel = "messaging:c" .. math.random(50)
  return wrk.format("POST", "/v1/channels/" .. channel .. "/messages",
    { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" },
    '{"text":"' .. text .. '"}')
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("send: %.0f messages/s, p50 %.2f ms, p99 %.2f ms, errors %d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
