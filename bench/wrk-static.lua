-- One request, the same every time: wrk -s wrk-static.lua <url> -- <method> <token or ""> <json body or "">
function init(args)
  wrk.method = args[1]
  if args[2] ~= nil and args[2] ~= "" then wrk.headers["Authorization"] = "Bearer " .. args[2] end
  if args[3] ~= nil and args[3] ~= "" then
    wrk.body = args[3]
    wrk.headers["Content-Type"] = "application/json"
  end
end
