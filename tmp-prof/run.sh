set -e
cd /work/main
DB=gate_prof_$RANDOM
psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB"
rm -rf /tmp/prof; mkdir -p /tmp/prof
DATABASE_URL=postgres://postgres@127.0.0.1:5432/$DB PORT=3988 ADMIN_API_KEY=bench-admin-key-0123456789abcdef LOG_LEVEL=warn RATE_LIMIT_PER_MIN=0 JWT_SECRET=abcdefabcdefabcdefabcdefabcdef12 /work/node24/package/bin/node ${PROF:+--cpu-prof --cpu-prof-dir=/tmp/prof} dist/src/main.js &
PID=$!
for i in $(seq 1 100); do curl -sf localhost:3988/health/ready >/dev/null && break; sleep 0.2; done
/work/node24/package/bin/node tmp-prof/checkin-load.mjs http://127.0.0.1:3988
kill -TERM $PID; wait $PID || true
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE $DB WITH (FORCE)"
