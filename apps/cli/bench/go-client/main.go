// Command go-load is an independent load generator for MCP servers over Streamable HTTP.
//
// It behaves like a 2025-era MCP host built on net/http: one keep-alive connection per
// agent, initialize then tool calls, every response body read to the end. It exists to
// check the TypeScript benchmark client's figures with a client written separately.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// requestTimeout bounds one HTTP exchange, so a stuck server ends the run instead of hanging it.
const requestTimeout = 30 * time.Second

type config struct {
	url             string
	agents          int
	duration        time.Duration
	warmup          time.Duration
	workload        string
	protocolVersion string
	orders          int
	customers       int
	seed            int64
	token           string
	sqlTool         string
	sqlArg          string
	tools           string
	service         string
}

func main() {
	cfg := parseFlags()

	// Every agent opens its session before the clock starts, as a host does before it works.
	workers := make([]*worker, cfg.agents)
	var setup sync.WaitGroup
	setupErrs := make([]error, cfg.agents)
	for i := range workers {
		workers[i] = newWorker(cfg, i)
		setup.Add(1)
		go func(i int) {
			defer setup.Done()
			setupErrs[i] = workers[i].open()
		}(i)
	}
	setup.Wait()
	if err := errors.Join(setupErrs...); err != nil {
		fatalf("initialize failed against %s: %v", cfg.url, firstLine(err))
	}
	first := workers[0]
	logf("%d agent(s) connected to %s (protocol %s, session id issued: %v); workload %s, warm-up %s, measuring %s",
		cfg.agents, cfg.url, first.negotiated, first.sessionIssued, cfg.workload, cfg.warmup, cfg.duration)

	start := time.Now()
	warmEnd := start.Add(cfg.warmup)
	end := warmEnd.Add(cfg.duration)
	var run sync.WaitGroup
	for _, w := range workers {
		run.Add(1)
		go func(w *worker) {
			defer run.Done()
			w.loop(warmEnd, end)
		}(w)
	}

	// The measured window runs from the end of the warm-up until the last recorded call returns.
	time.Sleep(time.Until(warmEnd))
	cpu0 := cpuTime()
	t0 := time.Now()
	// Marks for a script reading the server's CPU over the same window (bench/peers.mjs).
	logf("window open")
	run.Wait()
	elapsed := time.Since(t0)
	cpu := cpuTime() - cpu0
	logf("window closed")

	// Sessions the server keeps are ended, as a host does on exit (not measured); churn's
	// agents walk away from theirs, as crashed or serverless agents do.
	for _, w := range workers {
		if cfg.workload != "session" && cfg.workload != "churn" {
			_ = w.endSession()
		}
	}

	rep := summarize(cfg, workers, elapsed, cpu)
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(rep); err != nil {
		fatalf("writing the result: %v", err)
	}
	if rep.Calls == 0 {
		fatalf("no call succeeded in the measured window (errors: %v)", rep.Errors)
	}
}

func parseFlags() config {
	var cfg config
	flag.StringVar(&cfg.url, "url", "", "MCP endpoint, e.g. http://127.0.0.1:7400/mcp (required)")
	flag.IntVar(&cfg.agents, "agents", 1, "concurrent agents, each with its own connection")
	flag.DurationVar(&cfg.duration, "duration", 5*time.Second, "measured window")
	flag.DurationVar(&cfg.warmup, "warmup", time.Second, "unrecorded warm-up before the measured window")
	flag.StringVar(&cfg.workload, "workload", "get", "get | query-fk | query-point | top50 | filtered | f-status-total | f-fk | f-status-since | f-fk-between | f-total-between | session | churn | sql-get | sql-fk")
	flag.StringVar(&cfg.protocolVersion, "protocol-version", "2025-06-18", "protocol version asked for in initialize")
	flag.IntVar(&cfg.orders, "orders", 6000, "orders ids 1..N exist (keys for get and query-point)")
	flag.IntVar(&cfg.customers, "customers", 2000, "customer ids 1..N exist (keys for query-fk)")
	flag.Int64Var(&cfg.seed, "seed", 1, "seed of the key choice (each agent derives its own stream)")
	flag.StringVar(&cfg.token, "token", "", "bearer token, if the server wants one")
	flag.StringVar(&cfg.sqlTool, "sql-tool", "execute_sql", "the raw-SQL tool the sql-* workloads call (DBHub's execute_sql, our sql)")
	flag.StringVar(&cfg.sqlArg, "sql-arg", "sql", "the SQL argument of -sql-tool")
	flag.StringVar(&cfg.tools, "tools", "ours", "whose tools the reads call: ours (get, query, list_tables...), faucet (faucet_query...) or sql (-sql-tool with SELECTs)")
	flag.StringVar(&cfg.service, "service", "main", "with -tools faucet: the Faucet service (database) to read")
	flag.Parse()

	switch {
	case cfg.url == "":
		usagef("-url is required")
	case cfg.agents < 1:
		usagef("-agents must be at least 1")
	case cfg.duration <= 0:
		usagef("-duration must be positive")
	case cfg.warmup < 0:
		usagef("-warmup cannot be negative")
	case cfg.orders < 1 || cfg.customers < 1:
		usagef("-orders and -customers must be at least 1")
	}
	switch cfg.workload {
	case "get", "query-fk", "query-point", "top50", "filtered", "session", "churn", "sql-get", "sql-fk":
	default:
		if filterShapeNamed(cfg.workload) == nil {
			usagef("unknown -workload %q: want get, query-fk, query-point, top50, filtered (or one of its shapes: f-status-total, f-fk, f-status-since, f-fk-between, f-total-between), session, churn, sql-get or sql-fk", cfg.workload)
		}
	}
	tools, ok := toolSets[cfg.tools]
	if !ok {
		usagef("unknown -tools %q: want ours, faucet or sql", cfg.tools)
	}
	if cfg.workload == "session" && tools.listTables == nil {
		usagef("-workload session needs tools that list and describe tables: not -tools %s", cfg.tools)
	}
	return cfg
}

// worker is one agent: one HTTP client with one connection, one MCP session at a time.
type worker struct {
	cfg    config
	tools  toolSet
	client *http.Client
	rng    *rand.Rand
	nextID int64

	// Set by initialize and sent on every later request of the session.
	negotiated    string
	sessionID     string
	sessionIssued bool
	// the version the first session negotiated, reported even if a later initialize fails
	firstNegotiated string

	samples []int64 // latencies of successful operations, in microseconds
	errors  map[string]int
}

func newWorker(cfg config, index int) *worker {
	// Its own transport, so each agent holds exactly one keep-alive TCP connection, as
	// separate hosts would; compression off so the server does no work a host would not ask for.
	transport := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		MaxConnsPerHost:     1,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
	return &worker{
		cfg:    cfg,
		tools:  toolSets[cfg.tools],
		client: &http.Client{Transport: transport, Timeout: requestTimeout},
		// Agents draw different keys from one seed, so a run can be repeated exactly.
		rng:    rand.New(rand.NewPCG(uint64(cfg.seed), uint64(index))),
		errors: map[string]int{},
	}
}

// open starts the agent's first session, which proves the endpoint answers. The session
// workload ends it again (each of its operations opens its own); churn walks away from it.
func (w *worker) open() error {
	if err := w.startSession(); err != nil {
		return err
	}
	w.sessionIssued = w.sessionID != ""
	w.firstNegotiated = w.negotiated
	if w.cfg.workload == "session" {
		return w.endSession()
	}
	return nil
}

// loop runs operations back to back until end; those started before warmEnd are not recorded.
func (w *worker) loop(warmEnd, end time.Time) {
	for {
		start := time.Now()
		if !start.Before(end) {
			return
		}
		err := w.operation()
		took := time.Since(start)
		recorded := !start.Before(warmEnd)
		if err != nil {
			kind := errorKind(err)
			noteError(kind, err)
			if recorded {
				w.errors[kind]++
			}
			// A refused connection fails at once: pause rather than spin on a machine the server shares.
			if kind == "network" {
				time.Sleep(10 * time.Millisecond)
			}
			continue
		}
		if recorded {
			w.samples = append(w.samples, took.Microseconds())
		}
	}
}

func (w *worker) operation() error {
	switch w.cfg.workload {
	case "get":
		return w.call(w.tools.get(w.cfg, 1+w.rng.IntN(w.cfg.orders)))
	case "query-point":
		return w.call(w.tools.queryPoint(w.cfg, 1+w.rng.IntN(w.cfg.orders)))
	case "query-fk":
		return w.call(w.tools.queryFK(w.cfg, 1+w.rng.IntN(w.cfg.customers)))
	case "top50":
		return w.call(w.tools.top50(w.cfg))
	case "filtered":
		return w.filtered()
	// get and query-fk with -tools sql, whatever -tools says (kept for older command lines).
	case "sql-get":
		return w.call(toolSets["sql"].get(w.cfg, 1+w.rng.IntN(w.cfg.orders)))
	case "sql-fk":
		return w.call(toolSets["sql"].queryFK(w.cfg, 1+w.rng.IntN(w.cfg.customers)))
	case "churn":
		return w.churn()
	case "session":
		return w.session()
	default:
		return w.filtered()
	}
}

// toolCall is one tools/call: the tool's name and its arguments.
type toolCall struct {
	name string
	args map[string]any
}

func (w *worker) call(c toolCall) error { return w.callTool(c.name, c.args) }

// toolSet turns each read into one server's own tool calls, so the same reads run on both.
type toolSet struct {
	get, queryPoint func(cfg config, key int) toolCall
	queryFK         func(cfg config, customer int) toolCall
	top50           func(cfg config) toolCall
	// a filtered read of orders: the condition as filterShapes write it, limit 25, no order
	filter func(cfg config, condition string) toolCall
	// whether filter conditions write timestamps as ISO-8601 (ours) or as dates
	isoTimestamps bool
	listTables    func(cfg config) toolCall
	describe      func(cfg config, table string) toolCall
}

var toolSets = map[string]toolSet{
	"ours": {
		get: func(_ config, k int) toolCall { return toolCall{"get", map[string]any{"table": "orders", "key": k}} },
		queryPoint: func(_ config, k int) toolCall {
			return toolCall{"query", map[string]any{"table": "orders", "filter": fmt.Sprintf("id = %d", k), "limit": 1}}
		},
		queryFK: func(_ config, c int) toolCall {
			return toolCall{"query", map[string]any{"table": "orders", "filter": fmt.Sprintf("customer_id = %d", c), "limit": 20}}
		},
		top50: func(config) toolCall {
			return toolCall{"query", map[string]any{"table": "orders", "order_by": []string{"placed_at desc"}, "limit": 50}}
		},
		filter: func(_ config, condition string) toolCall {
			return toolCall{"query", map[string]any{"table": "orders", "filter": condition, "limit": filterLimit}}
		},
		isoTimestamps: true,
		listTables:    func(config) toolCall { return toolCall{"list_tables", map[string]any{}} },
		describe:      func(_ config, t string) toolCall { return toolCall{"describe_table", map[string]any{"table": t}} },
	},
	// Faucet (faucetdb) has no read by key: a point read is faucet_query with its filter, as
	// the faucet profile sends it. Our query sorts by the primary key when asked for no order,
	// so the filtered read asks Faucet for the same order.
	"faucet": {
		get:        faucetPoint,
		queryPoint: faucetPoint,
		queryFK: func(cfg config, c int) toolCall {
			return faucetQuery(cfg, map[string]any{"filter": fmt.Sprintf("customer_id = %d", c), "order": "id asc", "limit": 20})
		},
		top50: func(cfg config) toolCall {
			return faucetQuery(cfg, map[string]any{"order": "placed_at desc", "limit": 50})
		},
		filter: func(cfg config, condition string) toolCall {
			return faucetQuery(cfg, map[string]any{"filter": condition, "limit": filterLimit})
		},
		listTables: func(cfg config) toolCall {
			return toolCall{"faucet_list_tables", map[string]any{"service": cfg.service}}
		},
		describe: func(cfg config, t string) toolCall {
			return toolCall{"faucet_describe_table", map[string]any{"service": cfg.service, "table": t}}
		},
	},
	// The reads as SQL through a server's one raw-SQL tool (-sql-tool, DBHub's execute_sql): no discovery.
	"sql": {
		get:        sqlPoint,
		queryPoint: sqlPoint,
		queryFK: func(cfg config, c int) toolCall {
			return sqlCall(cfg, "SELECT * FROM orders WHERE customer_id = %d ORDER BY id LIMIT 20", c)
		},
		top50: func(cfg config) toolCall {
			return sqlCall(cfg, "SELECT * FROM orders ORDER BY placed_at DESC, id LIMIT 50")
		},
		filter: func(cfg config, condition string) toolCall {
			return sqlCall(cfg, "SELECT * FROM orders WHERE %s LIMIT %d", condition, filterLimit)
		},
	},
}

func faucetPoint(cfg config, k int) toolCall {
	return faucetQuery(cfg, map[string]any{"filter": fmt.Sprintf("id = %d", k), "limit": 1})
}

func faucetQuery(cfg config, args map[string]any) toolCall {
	args["service"] = cfg.service
	args["table"] = "orders"
	return toolCall{"faucet_query", args}
}

func sqlPoint(cfg config, k int) toolCall {
	return sqlCall(cfg, "SELECT * FROM orders WHERE id = %d", k)
}

func sqlCall(cfg config, format string, args ...any) toolCall {
	return toolCall{cfg.sqlTool, map[string]any{cfg.sqlArg: fmt.Sprintf(format, args...)}}
}

// churn is an agent that starts a session, makes a few reads and walks away without DELETE,
// as crashed agents and serverless invocations do.
func (w *worker) churn() error {
	err := w.startSession()
	if err == nil {
		_, err = w.request("tools/list", map[string]any{})
	}
	for i := 0; err == nil && i < churnReads; i++ {
		err = w.call(w.tools.queryPoint(w.cfg, 1+w.rng.IntN(w.cfg.orders)))
	}
	// A 503 is the server turning the newcomer away (too many open sessions): counted apart.
	if errorKind(err) == "http_503" {
		return &callError{kind: "refused", detail: err.Error()}
	}
	return err
}

// churnReads is how many point reads each churn session makes before it is abandoned.
const churnReads = 3

// session is what a host does when it connects to a database server it does not know yet.
func (w *worker) session() error {
	if err := w.startSession(); err != nil {
		return err
	}
	err := w.discover()
	// The session is ended even after a failure, so failed operations leave nothing behind.
	return errors.Join(err, w.endSession())
}

func (w *worker) discover() error {
	if _, err := w.request("tools/list", map[string]any{}); err != nil {
		return err
	}
	if err := w.call(w.tools.listTables(w.cfg)); err != nil {
		return err
	}
	if err := w.call(w.tools.describe(w.cfg, "orders")); err != nil {
		return err
	}
	return w.call(w.tools.describe(w.cfg, "customers"))
}

func (w *worker) startSession() error {
	// initialize carries neither header: both come from its answer.
	w.negotiated, w.sessionID = "", ""
	params := map[string]any{
		"protocolVersion": w.cfg.protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "go-load", "version": "0.1.0"},
	}
	id := w.newID()
	body, _ := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: &id, Method: "initialize", Params: params})
	res, header, err := w.exchange(http.MethodPost, body, id)
	if err != nil {
		return err
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion == "" {
		return &callError{kind: "bad_response", detail: "initialize result has no protocolVersion"}
	}
	w.negotiated = init.ProtocolVersion
	w.sessionID = header.Get("Mcp-Session-Id")

	note, _ := json.Marshal(rpcRequest{JSONRPC: "2.0", Method: "notifications/initialized"})
	_, _, err = w.exchange(http.MethodPost, note, 0)
	return err
}

// endSession sends DELETE when the server issued a session id; only a server failure counts.
func (w *worker) endSession() error {
	if w.sessionID == "" {
		return nil
	}
	req, err := http.NewRequest(http.MethodDelete, w.cfg.url, nil)
	if err != nil {
		return &callError{kind: "network", detail: err.Error()}
	}
	w.setHeaders(req)
	w.sessionID = ""
	resp, err := w.client.Do(req)
	if err != nil {
		return &callError{kind: "network", detail: err.Error()}
	}
	// Read to the end so the connection goes back to the pool.
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return &callError{kind: "http_" + strconv.Itoa(resp.StatusCode), detail: "DELETE of the session"}
	}
	return nil
}

// callTool calls a tool; a result flagged isError is a failure like any other.
func (w *worker) callTool(name string, arguments map[string]any) error {
	res, err := w.request("tools/call", map[string]any{"name": name, "arguments": arguments})
	if err != nil {
		return err
	}
	var tool struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &tool); err != nil {
		return &callError{kind: "bad_response", detail: "tools/call result is not an object"}
	}
	if tool.IsError {
		return &callError{kind: "tool_error", detail: name + ": " + truncate(string(res), 300)}
	}
	return nil
}

// request sends one JSON-RPC request in the current session and returns its result.
func (w *worker) request(method string, params any) (json.RawMessage, error) {
	id := w.newID()
	body, _ := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: &id, Method: method, Params: params})
	res, _, err := w.exchange(http.MethodPost, body, id)
	return res, err
}

func (w *worker) newID() int64 {
	w.nextID++
	return w.nextID
}

type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// exchange POSTs one message and reads the whole answer. id 0 marks a notification,
// which must be accepted with 202 and no body.
func (w *worker) exchange(method string, body []byte, id int64) (json.RawMessage, http.Header, error) {
	req, err := http.NewRequest(method, w.cfg.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, &callError{kind: "network", detail: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	w.setHeaders(req)

	resp, err := w.client.Do(req)
	if err != nil {
		return nil, nil, &callError{kind: "network", detail: err.Error()}
	}
	// The whole body, as typical Go clients read it: the time includes the server ending the stream.
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, nil, &callError{kind: "network", detail: "reading the response: " + err.Error()}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, nil, &callError{kind: "http_" + strconv.Itoa(resp.StatusCode), detail: truncate(string(data), 300)}
	}
	if id == 0 {
		if resp.StatusCode != http.StatusAccepted {
			return nil, nil, &callError{kind: "http_" + strconv.Itoa(resp.StatusCode), detail: "a notification must be answered 202"}
		}
		return nil, resp.Header, nil
	}

	msg, err := pickResponse(resp.Header.Get("Content-Type"), data, id)
	if err != nil {
		return nil, nil, err
	}
	if msg.Error != nil {
		return nil, nil, &callError{kind: "jsonrpc_" + strconv.Itoa(msg.Error.Code), detail: msg.Error.Message}
	}
	if len(msg.Result) == 0 {
		return nil, nil, &callError{kind: "bad_response", detail: "response has neither result nor error"}
	}
	return msg.Result, resp.Header, nil
}

func (w *worker) setHeaders(req *http.Request) {
	if w.negotiated != "" {
		req.Header.Set("MCP-Protocol-Version", w.negotiated)
	}
	if w.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", w.sessionID)
	}
	if w.cfg.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.cfg.token)
	}
}

// pickResponse finds the answer to request id in a JSON body or an SSE stream, which may
// carry notifications or requests from the server before the answer.
func pickResponse(contentType string, data []byte, id int64) (*rpcMessage, error) {
	media, _, _ := mime.ParseMediaType(contentType)
	var candidates [][]byte
	switch media {
	case "text/event-stream":
		candidates = sseData(data)
	case "application/json":
		candidates = [][]byte{data}
	default:
		return nil, &callError{kind: "bad_response", detail: fmt.Sprintf("unexpected Content-Type %q", contentType)}
	}
	want := strconv.FormatInt(id, 10)
	for _, c := range candidates {
		var msg rpcMessage
		if json.Unmarshal(c, &msg) != nil {
			continue
		}
		if string(bytes.TrimSpace(msg.ID)) == want {
			return &msg, nil
		}
	}
	return nil, &callError{kind: "bad_response", detail: fmt.Sprintf("no response with id %d in %s", id, truncate(string(data), 300))}
}

// sseData returns the data of each event: "data:" lines joined by newlines, events ended by a blank line.
func sseData(stream []byte) [][]byte {
	var events [][]byte
	var data []string
	flush := func() {
		if len(data) > 0 {
			events = append(events, []byte(strings.Join(data, "\n")))
			data = data[:0]
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 0, 64*1024), len(stream)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			flush()
			continue
		}
		if value, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(value, " "))
		}
		// event:, id:, retry: and comments do not change which message answers us.
	}
	flush() // a stream may end without the final blank line
	return events
}

type callError struct {
	kind   string
	detail string
}

func (e *callError) Error() string { return e.kind + ": " + e.detail }

func errorKind(err error) string {
	var ce *callError
	if errors.As(err, &ce) {
		return ce.kind
	}
	return "other"
}

// noteError logs the first error of each kind, so a failing run says why without flooding stderr.
var (
	seenMu sync.Mutex
	seen   = map[string]bool{}
)

func noteError(kind string, err error) {
	seenMu.Lock()
	defer seenMu.Unlock()
	if !seen[kind] {
		seen[kind] = true
		logf("first %s error: %v", kind, firstLine(err))
	}
}

type report struct {
	Client             string         `json:"client"`
	GoVersion          string         `json:"goVersion"`
	GoMaxProcs         int            `json:"gomaxprocs"`
	Workload           string         `json:"workload"`
	Agents             int            `json:"agents"`
	ProtocolVersion    string         `json:"protocolVersion"`
	SessionIssued      bool           `json:"sessionIssued"`
	DurationSec        float64        `json:"durationSec"`
	Calls              int            `json:"calls"`
	CallsPerSec        float64        `json:"callsPerSec"`
	P50Ms              float64        `json:"p50Ms"`
	P90Ms              float64        `json:"p90Ms"`
	P99Ms              float64        `json:"p99Ms"`
	MaxMs              float64        `json:"maxMs"`
	Errors             map[string]int `json:"errors"`
	ClientCPUSec       float64        `json:"clientCpuSec"`
	ClientCPUUsPerCall float64        `json:"clientCpuUsPerCall"`
	// every successful call's latency: [microseconds, calls], ascending (bench/result-file.mjs reads it)
	LatencyUs [][2]int64 `json:"latencyUs"`
}

func summarize(cfg config, workers []*worker, elapsed, cpu time.Duration) report {
	var all []int64
	errs := map[string]int{}
	for _, w := range workers {
		all = append(all, w.samples...)
		for k, n := range w.errors {
			errs[k] += n
		}
	}
	// Exact percentiles: every sample, sorted.
	slices.Sort(all)
	rep := report{
		Client:          "go-net-http",
		GoVersion:       runtime.Version(),
		GoMaxProcs:      runtime.GOMAXPROCS(0),
		Workload:        cfg.workload,
		Agents:          cfg.agents,
		ProtocolVersion: workers[0].firstNegotiated,
		SessionIssued:   workers[0].sessionIssued,
		DurationSec:     round(elapsed.Seconds(), 3),
		Calls:           len(all),
		CallsPerSec:     round(float64(len(all))/elapsed.Seconds(), 1),
		Errors:          errs,
		ClientCPUSec:    round(cpu.Seconds(), 3),
	}
	if len(all) > 0 {
		rep.P50Ms = percentileMs(all, 0.50)
		rep.P90Ms = percentileMs(all, 0.90)
		rep.P99Ms = percentileMs(all, 0.99)
		rep.MaxMs = float64(all[len(all)-1]) / 1000
		rep.ClientCPUUsPerCall = round(float64(cpu.Microseconds())/float64(len(all)), 1)
	}
	rep.LatencyUs = [][2]int64{}
	for _, us := range all {
		if n := len(rep.LatencyUs); n > 0 && rep.LatencyUs[n-1][0] == us {
			rep.LatencyUs[n-1][1]++
		} else {
			rep.LatencyUs = append(rep.LatencyUs, [2]int64{us, 1})
		}
	}
	return rep
}

// percentileMs is the nearest-rank percentile of sorted microsecond samples, in milliseconds.
func percentileMs(sorted []int64, p float64) float64 {
	rank := int(math.Ceil(p * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return float64(sorted[rank-1]) / 1000
}

// cpuTime is the user plus system CPU this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func round(v float64, places int) float64 {
	scale := math.Pow(10, float64(places))
	return math.Round(v*scale) / scale
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go-load: "+format+"\n", args...)
}

func fatalf(format string, args ...any) {
	logf(format, args...)
	os.Exit(1)
}

func usagef(format string, args ...any) {
	logf(format, args...)
	flag.Usage()
	os.Exit(2)
}
