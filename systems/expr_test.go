package systems

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// exprTol bounds |Eval − Go's value| of the same formula: both round the same float64
// operations in the same order, so only the last bit of a library call may differ.
const exprTol = 1e-15

func TestExprPrecedenceAndFunctions(t *testing.T) {
	var v [NumExprVars]float64
	v[VarT], v[VarDt], v[VarX], v[VarY], v[VarZ] = 0.7, 0.005, 1.5, -2, 0.25
	v[VarVx], v[VarVy], v[VarVz], v[VarValueX], v[VarValueY], v[VarValueZ] = 3, 4, 5, 6, 7, 8
	cases := []struct {
		src  string
		want float64
	}{
		{"1+2*3", 7},
		{"(1+2)*3", 9},
		{"8/4/2", 1},  // left-associative
		{"2^3^2", 64}, // left-associative as in the reference: (2^3)^2
		{"-2^2", 4},   // (−2)^2, the reference's rule
		{"2*-3", -6},  // unary minus after an operator
		{"--3", 3},
		{"7%4", 3},
		{"1e-3*1E+3", 1},
		{".5+2.", 2.5},
		{"cos(2*t)*0.1", math.Cos(1.4) * 0.1}, // AnimationFields_2D.json's first field
		{"sin(2*t)*0.2", math.Sin(1.4) * 0.2},
		{"x*vx+y*vy+z*vz", 1.5*3 - 8 + 1.25},
		{"valuex+valuey*valuez-dt", 6 + 56 - 0.005},
		{"sqrt(abs(y))+exp(ln(3))", math.Sqrt(2) + math.Exp(math.Log(3))},
		{"log(1000)+log10(100)", 5}, // log is base 10 in the reference
		{"pow(2,10)-max(1,min(4,3))", 1024 - 3},
		{"atan2(1,1)*4-pi", 0},
		{"pi()-pi+e()-e", 0},
		{"tan(0.3)+sinh(0.2)+cosh(0.2)+tanh(0.1)+asin(0.5)+acos(0.5)+atan(1)", math.Tan(0.3) + math.Sinh(0.2) + math.Cosh(0.2) + math.Tanh(0.1) + math.Asin(0.5) + math.Acos(0.5) + math.Atan(1)},
		{"floor(-1.5)+ceil(1.2)", 0},
		{" 0.125 ", 0.125},
	}
	for _, c := range cases {
		e, err := CompileExpr(c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := e.Eval(&v); math.Abs(got-c.want) > exprTol*max(1, math.Abs(c.want)) {
			t.Errorf("%q = %.17g, want %.17g", c.src, got, c.want)
		}
	}
}

func TestExprErrorsNamePosition(t *testing.T) {
	cases := []struct {
		src  string
		pos  int
		word string
	}{
		{"", 0, "empty"},
		{"cos(2*t", 7, `")"`},
		{"1 + * 2", 4, `"*"`},
		{"2*q", 2, `"q"`},
		{"sin 2", 4, `"("`},
		{"pow(2)", 5, "2 arguments"},
		{"abs(1,2)", 5, "1 argument"},
		{"1 2", 2, `"2"`},
		{"3 $ 4", 2, `"$"`},
		{"(1+2))", 5, `")"`},
		{"1.2.3", 0, "bad number"},
	}
	for _, c := range cases {
		_, err := CompileExpr(c.src)
		var ee *ExprError
		if !errors.As(err, &ee) {
			t.Errorf("%q: error %v, want an ExprError", c.src, err)
			continue
		}
		if ee.Pos != c.pos || !strings.Contains(ee.Error(), c.word) || ee.Expr != c.src {
			t.Errorf("%q: %v (position %d), want position %d mentioning %s", c.src, err, ee.Pos, c.pos, c.word)
		}
	}
}

func TestExprEvalAllocatesNothing(t *testing.T) {
	e, err := CompileExpr("cos(2*t)*0.1 + max(x, -y)^2")
	if err != nil {
		t.Fatal(err)
	}
	var v [NumExprVars]float64
	if n := testing.AllocsPerRun(100, func() { v[VarT] += e.Eval(&v) * 1e-9 }); n != 0 {
		t.Fatalf("%v allocations per Eval", n)
	}
}
