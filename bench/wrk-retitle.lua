-- PUT <url><id> with a new title, cycling through "<token> <filter id>" lines of a file (filters of one
-- account), so the write's cost can be compared between accounts of different sizes without any of them
-- growing towards a limit during the run:
-- wrk -s wrk-retitle.lua <url> -- <tokens and ids file>
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
  local body = '{"title":"retitled ' .. sent .. '"}'
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. target.token }
  return wrk.format(nil, wrk.path .. target.id, headers, body)
end

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
