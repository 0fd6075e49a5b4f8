package runtime

import (
	"errors"
	"strings"
)

// Errors the runtime wraps, for errors.Is. The first three are the kinds of
// the checking builtins, matching the Python exception types TVM raises
// (TypeError, ValueError, RuntimeError for match_cast).
var (
	// ErrType: a value has the wrong kind (expected a Tensor, got a Shape).
	ErrType = errors.New("type error")
	// ErrLimit: a call exceeded an instruction limit (WithInstructionLimit).
	ErrLimit = errors.New("limit exceeded")
	// ErrValue: a value has the right kind but a wrong ndim, dtype or size.
	ErrValue = errors.New("value error")
	// ErrMatch: a shape dimension or prim value does not match (match_cast).
	ErrMatch = errors.New("match error")
	// ErrMissingFunction is the error of NewVM when a packed function the
	// executable calls is registered nowhere (a model calling a user function
	// that the program has not registered).
	ErrMissingFunction = errors.New("cannot find packed function")
	// ErrUnknownFunction is wrapped when a function name is not in the executable.
	ErrUnknownFunction = errors.New("unknown function")
	// ErrArity is wrapped when a function receives the wrong number of arguments.
	ErrArity = errors.New("wrong number of arguments")
	// ErrBuiltinArgs is wrapped by Args (and so by the builtins and the
	// kernels) when a packed function receives arguments of the wrong number
	// or type: for builtins and kernels a code generator bug rather than a
	// user input error.
	ErrBuiltinArgs = errors.New("bad builtin arguments")
	// ErrFormat is wrapped by every error that rejects bytes as not an executable.
	ErrFormat = errors.New("invalid VM executable file")
	// ErrInvalidExecutable is wrapped by every error that rejects an
	// executable's structure (loader and builder).
	ErrInvalidExecutable = errors.New("invalid executable")
)

// CheckError is the error of a vm.builtin.check_* or match_* builtin. Its
// message starts with the readable form of the error context the compiler
// passed, e.g. "main: parameter x: shape mismatch at dim 1: expected 16, got 15".
type CheckError struct {
	Kind    error  // ErrType, ErrValue or ErrMatch
	Context string // the raw err_ctx argument
	Msg     string // the full message
}

// Error returns the message.
func (e *CheckError) Error() string { return e.Msg }

// Unwrap returns the kind, so errors.Is(err, ErrValue) works.
func (e *CheckError) Unwrap() error { return e.Kind }

// checkErr builds a CheckError for builtin fn from the error context ctx and
// the description what ("ndim mismatch: expected 2, got 3").
func checkErr(kind error, fn string, ctx any, what string) *CheckError {
	raw, _ := ctx.(string)
	prefix, annotation := describeErrCtx(raw)
	if prefix == "" {
		prefix = fn
	}
	msg := prefix + ": " + what
	if annotation != "" {
		msg += " (annotation: " + annotation + ")"
	}
	return &CheckError{Kind: kind, Context: raw, Msg: msg}
}

// describeErrCtx turns TVM's error context
//
//	ErrorContext(fn=main, loc=param[0], param=x, annotation=R.Tensor((n, 16), dtype="float32"))
//
// into ("main: parameter x", `R.Tensor((n, 16), dtype="float32")`). Any other
// non-empty string is used as the prefix unchanged.
func describeErrCtx(s string) (prefix, annotation string) {
	s = strings.TrimSpace(s)
	const head = "ErrorContext("
	if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, ")") {
		return s, ""
	}
	fields := map[string]string{}
	for _, part := range splitTopLevel(s[len(head) : len(s)-1]) {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return s, ""
		}
		fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	var parts []string
	if fn := fields["fn"]; fn != "" {
		parts = append(parts, fn)
	}
	switch loc := fields["loc"]; {
	case fields["param"] != "":
		parts = append(parts, "parameter "+fields["param"])
	case loc == "return" || loc == "ret":
		parts = append(parts, "return value")
	case loc != "":
		parts = append(parts, loc)
	}
	if len(parts) == 0 {
		return s, fields["annotation"]
	}
	return strings.Join(parts, ": "), fields["annotation"]
}

// splitTopLevel splits s at commas outside brackets and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth := 0
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
