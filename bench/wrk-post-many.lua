-- POST <url> with one body, the token taken round robin from a file of tokens (one a line), so the
-- writes spread over many accounts and none nears a per-account limit:
-- wrk -s wrk-post-many.lua <url> -- <json body> <tokens file>
local tokens = {}
local sent = 0

function init(args)
  wrk.method = "POST"
  wrk.body = args[1]
  for line in io.lines(args[2]) do tokens[#tokens + 1] = line end
end

function request()
  sent = sent + 1
  -- Headers given to wrk.format replace wrk.headers: both are named here.
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tokens[(sent % #tokens) + 1] }
  return wrk.format(nil, nil, headers, nil)
end

-- The first refusal's status and body, printed after the run, so a failed run says what answered.
local threads = {}
function setup(thread) threads[#threads + 1] = thread end
first_refusal = ""
function response(status, headers, body)
  if status >= 300 and first_refusal == "" then first_refusal = status .. " " .. string.sub(body or "", 1, 300) end
end
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    local refusal = thread:get("first_refusal")
    if refusal ~= nil and refusal ~= "" then print("First refusal: " .. refusal) end
  end
end
