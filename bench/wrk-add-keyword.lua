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
