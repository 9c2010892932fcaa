-- PUT <url><id> adding one new keyword, cycling through the filter ids listed one a line in a file, so
-- concurrent requests rarely touch the same filter: wrk -s wrk-add-keyword.lua <url> -- <token> <ids file>
local ids = {}
local sent = 0

function init(args)
  wrk.method = "PUT"
  wrk.headers["Authorization"] = "Bearer " .. args[1]
  wrk.headers["Content-Type"] = "application/json"
  for line in io.lines(args[2]) do ids[#ids + 1] = line end
end

function request()
  sent = sent + 1
  local id = ids[(sent % #ids) + 1]
  local body = '{"keywords_attributes":[{"keyword":"added ' .. sent .. '"}]}'
  return wrk.format(nil, wrk.path .. id, nil, body)
end
