package systems

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The math expressions of animation fields (animfield.go), in the dialect of the scenes of
// SPlisHSPlasH (whose expressions are evaluated by the tinyexpr library):
//
//	expr   = term {("+" | "-") term}
//	term   = factor {("*" | "/" | "%") factor}
//	factor = power {"^" power}              left-associative: a^b^c = (a^b)^c
//	power  = {"-" | "+"} base               so -a^b = (-a)^b
//	base   = number | variable | constant ["(" ")"] | function "(" expr {"," expr} ")" | "(" expr ")"
//
// Variables: t (s, the time at the start of the substep), dt (s, the substep), x, y, z (m,
// the particle's position), vx, vy, vz (m/s, its velocity), valuex, valuey, valuez (the
// animated field's current value). Constants: pi, e. Functions of one argument: abs, acos,
// asin, atan, ceil, cos, cosh, exp, floor, ln (natural), log and log10 (base 10, as in the
// reference), sin, sinh, sqrt, tan, tanh; of two: atan2, pow, min, max. An expression is
// compiled once to a flat postfix program that Eval runs on a fixed stack, allocating nothing.

// Expression variables, in the order of ExprVars.
const (
	VarT = iota
	VarDt
	VarX
	VarY
	VarZ
	VarVx
	VarVy
	VarVz
	VarValueX
	VarValueY
	VarValueZ
	NumExprVars
)

// ExprVars are the variable names, indexed by VarT … VarValueZ.
var ExprVars = [NumExprVars]string{"t", "dt", "x", "y", "z", "vx", "vy", "vz", "valuex", "valuey", "valuez"}

// exprStack is the deepest operand stack a program may need.
const exprStack = 32

type opKind uint8

const (
	opConst opKind = iota
	opVar
	opNeg
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opPow
	opFn1
	opFn2
)

type exprOp struct {
	kind opKind
	idx  uint8 // variable index or function index
	val  float64
}

var fn1Names = []string{"abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "exp", "floor", "ln", "log", "log10", "sin", "sinh", "sqrt", "tan", "tanh"}
var fn1 = []func(float64) float64{math.Abs, math.Acos, math.Asin, math.Atan, math.Ceil, math.Cos, math.Cosh, math.Exp, math.Floor, math.Log, math.Log10, math.Log10, math.Sin, math.Sinh, math.Sqrt, math.Tan, math.Tanh}
var fn2Names = []string{"atan2", "pow", "min", "max"}
var fn2 = []func(a, b float64) float64{math.Atan2, math.Pow, math.Min, math.Max}

// Expr is a compiled expression.
type Expr struct {
	src  string
	prog []exprOp
}

// String returns the source text.
func (e *Expr) String() string { return e.src }

// ExprError is a syntax error: the expression and the byte position of the bad token.
type ExprError struct {
	Expr string
	Pos  int
	Msg  string
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("expression %q at position %d: %s", e.Expr, e.Pos, e.Msg)
}

// CompileExpr parses src (see the grammar above). An empty or blank src is an error: the
// caller decides what an absent expression means.
func CompileExpr(src string) (*Expr, error) {
	p := exprParser{src: src}
	p.next()
	if p.tok == tokEnd {
		return nil, &ExprError{src, 0, "empty expression"}
	}
	if err := p.expr(); err != nil {
		return nil, err
	}
	if p.tok != tokEnd {
		return nil, p.fail("unexpected %q after the end of the expression", p.text)
	}
	depth, maxDepth := 0, 0
	for _, op := range p.prog {
		switch op.kind {
		case opConst, opVar:
			depth++
		case opNeg, opFn1:
		default:
			depth--
		}
		maxDepth = max(maxDepth, depth)
	}
	if maxDepth > exprStack {
		return nil, &ExprError{src, 0, fmt.Sprintf("nested %d deep, more than %d", maxDepth, exprStack)}
	}
	return &Expr{src: src, prog: p.prog}, nil
}

// Eval evaluates the program with the variables vars (indexed by VarT … VarValueZ).
func (e *Expr) Eval(vars *[NumExprVars]float64) float64 {
	var st [exprStack]float64
	n := 0
	for i := range e.prog {
		op := &e.prog[i]
		switch op.kind {
		case opConst:
			st[n] = op.val
			n++
		case opVar:
			st[n] = vars[op.idx]
			n++
		case opNeg:
			st[n-1] = -st[n-1]
		case opFn1:
			st[n-1] = fn1[op.idx](st[n-1])
		default:
			a, b := st[n-2], st[n-1]
			n--
			var r float64
			switch op.kind {
			case opAdd:
				r = a + b
			case opSub:
				r = a - b
			case opMul:
				r = a * b
			case opDiv:
				r = a / b
			case opMod:
				r = math.Mod(a, b)
			case opPow:
				r = math.Pow(a, b)
			case opFn2:
				r = fn2[op.idx](a, b)
			}
			st[n-1] = r
		}
	}
	return st[0]
}

type tokKind uint8

const (
	tokEnd tokKind = iota
	tokNum
	tokName
	tokOp // one of + - * / % ^ ( ) ,
	tokBad
)

type exprParser struct {
	src      string
	pos      int // position of the current token
	end      int // position after it
	tok      tokKind
	text     string
	num      float64
	prog     []exprOp
	numError error
}

func (p *exprParser) fail(format string, a ...any) error {
	return &ExprError{p.src, p.pos, fmt.Sprintf(format, a...)}
}

// next reads the token after the current one.
func (p *exprParser) next() {
	i := p.end
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n' || p.src[i] == '\r') {
		i++
	}
	p.pos = i
	if i == len(p.src) {
		p.tok, p.text, p.end = tokEnd, "", i
		return
	}
	c := p.src[i]
	switch {
	case c >= '0' && c <= '9' || c == '.':
		j := i
		for j < len(p.src) && (p.src[j] >= '0' && p.src[j] <= '9' || p.src[j] == '.') {
			j++
		}
		if j < len(p.src) && (p.src[j] == 'e' || p.src[j] == 'E') {
			k := j + 1
			if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
				k++
			}
			if k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
				for k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
					k++
				}
				j = k
			}
		}
		p.tok, p.text, p.end = tokNum, p.src[i:j], j
		p.num, p.numError = strconv.ParseFloat(p.text, 64)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_':
		j := i
		for j < len(p.src) && (p.src[j] >= 'a' && p.src[j] <= 'z' || p.src[j] >= 'A' && p.src[j] <= 'Z' || p.src[j] == '_' || p.src[j] >= '0' && p.src[j] <= '9') {
			j++
		}
		p.tok, p.text, p.end = tokName, p.src[i:j], j
	case strings.IndexByte("+-*/%^(),", c) >= 0:
		p.tok, p.text, p.end = tokOp, p.src[i:i+1], i+1
	default:
		p.tok, p.text, p.end = tokBad, p.src[i:i+1], i+1
	}
}

func (p *exprParser) isOp(s string) bool { return p.tok == tokOp && p.text == s }

func (p *exprParser) emit(op exprOp) { p.prog = append(p.prog, op) }

func (p *exprParser) expr() error {
	if err := p.term(); err != nil {
		return err
	}
	for p.isOp("+") || p.isOp("-") {
		k := opAdd
		if p.text == "-" {
			k = opSub
		}
		p.next()
		if err := p.term(); err != nil {
			return err
		}
		p.emit(exprOp{kind: k})
	}
	return nil
}

func (p *exprParser) term() error {
	if err := p.factor(); err != nil {
		return err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		k := map[string]opKind{"*": opMul, "/": opDiv, "%": opMod}[p.text]
		p.next()
		if err := p.factor(); err != nil {
			return err
		}
		p.emit(exprOp{kind: k})
	}
	return nil
}

func (p *exprParser) factor() error {
	if err := p.power(); err != nil {
		return err
	}
	for p.isOp("^") {
		p.next()
		if err := p.power(); err != nil {
			return err
		}
		p.emit(exprOp{kind: opPow})
	}
	return nil
}

func (p *exprParser) power() error {
	neg := false
	for p.isOp("-") || p.isOp("+") {
		if p.text == "-" {
			neg = !neg
		}
		p.next()
	}
	if err := p.base(); err != nil {
		return err
	}
	if neg {
		p.emit(exprOp{kind: opNeg})
	}
	return nil
}

func (p *exprParser) expect(s string) error {
	if !p.isOp(s) {
		if p.tok == tokEnd {
			return p.fail("expected %q, the expression ends", s)
		}
		return p.fail("expected %q, found %q", s, p.text)
	}
	p.next()
	return nil
}

func (p *exprParser) base() error {
	switch p.tok {
	case tokNum:
		if p.numError != nil {
			return p.fail("bad number %q", p.text)
		}
		p.emit(exprOp{kind: opConst, val: p.num})
		p.next()
		return nil
	case tokName:
		name := p.text
		for i, v := range ExprVars {
			if v == name {
				p.emit(exprOp{kind: opVar, idx: uint8(i)})
				p.next()
				return nil
			}
		}
		if name == "pi" || name == "e" {
			c := math.Pi
			if name == "e" {
				c = math.E
			}
			p.emit(exprOp{kind: opConst, val: c})
			p.next()
			if p.isOp("(") { // the reference's constants are functions of no argument: pi()
				p.next()
				return p.expect(")")
			}
			return nil
		}
		for i, f := range fn1Names {
			if f == name {
				p.next()
				if err := p.args(1, name); err != nil {
					return err
				}
				p.emit(exprOp{kind: opFn1, idx: uint8(i)})
				return nil
			}
		}
		for i, f := range fn2Names {
			if f == name {
				p.next()
				if err := p.args(2, name); err != nil {
					return err
				}
				p.emit(exprOp{kind: opFn2, idx: uint8(i)})
				return nil
			}
		}
		return p.fail("unknown name %q (variables: %s; constants: pi, e; functions: %s, %s)", name,
			strings.Join(ExprVars[:], ", "), strings.Join(fn1Names, ", "), strings.Join(fn2Names, ", "))
	case tokOp:
		if p.text == "(" {
			p.next()
			if err := p.expr(); err != nil {
				return err
			}
			return p.expect(")")
		}
		return p.fail("unexpected %q", p.text)
	case tokEnd:
		return p.fail("the expression ends where a value is expected")
	}
	return p.fail("unexpected character %q", p.text)
}

// args reads "(" expr {"," expr} ")" with exactly n arguments.
func (p *exprParser) args(n int, name string) error {
	if !p.isOp("(") {
		return p.fail("expected \"(\" after the function %s", name)
	}
	p.next()
	for k := 0; k < n; k++ {
		if k > 0 {
			if !p.isOp(",") {
				return p.fail("%s takes %d arguments, expected \",\"", name, n)
			}
			p.next()
		}
		if err := p.expr(); err != nil {
			return err
		}
	}
	if p.isOp(",") {
		return p.fail("%s takes %d argument(s)", name, n)
	}
	return p.expect(")")
}
