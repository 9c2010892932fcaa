-- PUT <url><id> adding one new keyword, cycling through "<token> <filter id>" lines of a file (filters of
-- many accounts), so concurrent requests rarely touch the same filter or account and none nears a limit:
-- wrk -s wrk-add-keyword.lua <url> -- <tokens and ids file>
local targets = {}
local sent = 0

function init(args)
  wrk.method = "PUT"
  for line in io.lines(args[1]) do
    local token, id = line:match("^(%S+) (%S+)$")
    targets[#targets + 1] = { token = token, id = id }
  end
end

function request()
  sent = sent + 1
  local target = targets[(sent % #targets) + 1]
  local body = '{"keywords_attributes":[{"keyword":"added ' .. sent .. '"}]}'
  -- Headers given to wrk.format replace wrk.headers: both are named here.
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. target.token }
  return wrk.format(nil, wrk.path .. target.id, headers, body)
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
