//go:build g3n && cgo

package game

import (
	"os"
	"runtime"
	"testing"

	"github.com/sluicephysics/sluice"
)

// g3n's window and its GL context belong to the OS thread that opened them, but every test
// runs on a goroutine of its own: the render tests hand their Run calls to the test binary's
// main goroutine, locked to the main thread, through onMain.
var mainCalls = make(chan func())

func init() { runtime.LockOSThread() }

// TestMain runs the tests on another goroutine and serves onMain's calls on the main thread
// until they finish.
func TestMain(m *testing.M) {
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-mainCalls:
			f()
		case code := <-done:
			os.Exit(code)
		}
	}
}

// onMain runs f on the main thread and returns when it has.
func onMain(f func()) {
	finished := make(chan struct{})
	mainCalls <- func() {
		defer close(finished)
		f()
	}
	<-finished
}

// runOnMain is Run called on the main thread.
func runOnMain(w *sluice.World, o Options) (shot *Shot, err error) {
	onMain(func() { shot, err = Run(w, o) })
	return shot, err
}
