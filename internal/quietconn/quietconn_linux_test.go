package quietconn

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// quietPair returns both ends of a loopback TCP connection, the first
// through Wrap.
func quietPair(t *testing.T) (*conn, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			close(acc)
			return
		}
		acc <- nc
	}()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, ok := <-acc
	if !ok {
		t.Fatal("accept failed")
	}
	qc, ok := Wrap(nc).(*conn)
	if !ok {
		t.Fatalf("Wrap(%T) is not a *conn", nc)
	}
	t.Cleanup(func() { qc.Close(); peer.Close() })
	return qc, peer
}

// TestQuietConn checks that a connection through Wrap behaves as
// the net.Conn it wraps: data both ways in order, also more than the
// socket buffers hold (writes that wait for the reader), read deadlines,
// end of stream, and a Close that ends a blocked Read.
func TestQuietConn(t *testing.T) {
	qc, peer := quietPair(t)
	// A failure ends the test, not a read that waits for ever.
	deadline := time.Now().Add(10 * time.Second)
	qc.SetDeadline(deadline)
	peer.SetDeadline(deadline)

	// 8 MiB each way, far more than loopback's socket buffers.
	want := make([]byte, 8<<20)
	for i := range want {
		want[i] = byte(i*7 + i>>11)
	}
	errc := make(chan error, 1)
	go func() {
		n, err := qc.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		errc <- err
	}()
	got, err := io.ReadAll(io.LimitReader(peer, int64(len(want))))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("peer read %d bytes, not the %d written", len(got), len(want))
	}
	go func() {
		_, err := peer.Write(want)
		errc <- err
	}()
	got, err = io.ReadAll(io.LimitReader(qc, int64(len(want))))
	if err != nil || !bytes.Equal(got, want) || <-errc != nil {
		t.Fatalf("read %d bytes (%v), not the %d written", len(got), err, len(want))
	}

	// A read deadline ends a read that has nothing to read with a timeout.
	qc.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	var ne net.Error
	if _, err := qc.Read(make([]byte, 16)); !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	qc.SetReadDeadline(deadline)

	// The peer's data, then its close: the data, then io.EOF.
	peer.Write([]byte("last"))
	peer.Close()
	buf := make([]byte, 16)
	if n, err := qc.Read(buf); err != nil || string(buf[:n]) != "last" {
		t.Fatalf("read %q, %v; want \"last\"", buf[:n], err)
	}
	if _, err := qc.Read(buf); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	// Writes to a peer that has gone fail, with an error naming the call.
	var werr error
	for range 100 {
		if _, werr = qc.Write(buf); werr != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var oe *net.OpError
	if !errors.As(werr, &oe) || oe.Op != "write" {
		t.Fatalf("write to a closed peer: %v, want a *net.OpError of write", werr)
	}
}

// TestQuietConnClose checks that closing a connection ends a Read blocked
// on it with net.ErrClosed, as for any net.Conn.
func TestQuietConnClose(t *testing.T) {
	qc, _ := quietPair(t)
	errc := make(chan error, 1)
	go func() {
		_, err := qc.Read(make([]byte, 16))
		errc <- err
	}()
	time.Sleep(10 * time.Millisecond)
	qc.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("read on a closed connection: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read still blocked 5 s after Close")
	}
}
