-- POST a filter, then DELETE it, on one account (one token), so the account keeps the size it was seeded
-- with (at most one created filter per connection more) however long the run: a write's cost against the
-- account's size, never a refusal at its limit of 1,000 filters.
-- wrk -s wrk-post-delete.lua <url of /api/v2/filters> -- <json body> <token>
local created = {}
local post_headers, delete_headers

function init(args)
  wrk.body = args[1]
  post_headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[2] }
  delete_headers = { ["Authorization"] = "Bearer " .. args[2] }
end

function request()
  local id = table.remove(created)
  if id then return wrk.format("DELETE", wrk.path .. "/" .. id, delete_headers, "") end
  return wrk.format("POST", wrk.path, post_headers, wrk.body)
end

local threads = {}
function setup(thread) threads[#threads + 1] = thread end
first_refusal = ""
function response(status, headers, body)
  if status >= 300 and first_refusal == "" then first_refusal = status .. " " .. string.sub(body or "", 1, 300) end
  -- A created filter's answer starts with its id; a DELETE answers {}.
  local id = body and string.match(body, '^{"id":"([^"]+)"')
  if status < 300 and id then created[#created + 1] = id end
end
function done(summary, latency, requests)
  for _, thread in ipairs(threads) do
    local refusal = thread:get("first_refusal")
    if refusal ~= nil and refusal ~= "" then print("First refusal: " .. refusal) end
  end
end
