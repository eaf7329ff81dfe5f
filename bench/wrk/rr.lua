-- Round-robin over many users: `users` (set by bench/run's prelude) lists
-- {path, "Bearer …"} pairs; each request is the next user's own list, with their token.
local i = 0
request = function()
  i = i % #users + 1
  local u = users[i]
  return wrk.format("GET", u[1], {["Authorization"] = u[2]})
end
