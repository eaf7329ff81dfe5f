-- POST /api/user/login with the e-mail and password set by bench/run above.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"' .. email .. '","password":"' .. password .. '"}'
