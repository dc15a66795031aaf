package snapshot

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

type shared struct {
	N  int
	Xs []uint32
}

type namer interface{ Name() string }

type ptrImpl struct {
	K int64
	S *shared
}

func (*ptrImpl) Name() string { return "ptr" }

type valImpl struct{ A, B int32 }

func (valImpl) Name() string { return "val" }

// inner has padding (int8 then int64), so its slices go element by element.
type inner struct {
	A int8
	B int64
	P *shared
}

type plainPair struct{ X, Y uint32 }

type graph struct {
	A, B   *shared // the same object
	C      *shared // nil
	I      namer   // a *ptrImpl whose S is A
	V      namer   // a valImpl
	Nil    namer
	M      map[string][]int64
	NilMap map[int32]*shared
	EmptyM map[int32]*shared
	NilS   []int32
	Empty  []int32
	Big    []uint64
	Pairs  []plainPair
	Bools  []bool
	Arr    [3]int16
	Str    string
	F      func() int
	Skip   int `snapshot:"-"`
	Nest   []inner
	Self   *graph // a cycle back to the root
	Cplx   complex128
	F32    float32
	U8     uint8
	Int    int
	Flag   bool
	Rng    *rand.Rand
}

// fresh is a graph as a constructor would build it: objects in place,
// interfaces holding their types, nothing restored yet.
func fresh() *graph {
	g := &graph{
		A: &shared{}, B: &shared{}, I: &ptrImpl{}, V: valImpl{}, Big: make([]uint64, 0, 4096),
		F: func() int { return 42 }, Skip: 7, Rng: rand.New(rand.NewPCG(0, 0)),
	}
	g.Self = g
	return g
}

func saved() *graph {
	s := &shared{N: -3, Xs: []uint32{1, 2, 3}}
	g := &graph{
		A: s, B: s, I: &ptrImpl{K: 9, S: s}, V: valImpl{A: 1, B: 2},
		M:      map[string][]int64{"b": {2}, "a": nil, "c": {}},
		EmptyM: map[int32]*shared{},
		Empty:  []int32{},
		Pairs:  []plainPair{{1, 2}, {3, 4}},
		Bools:  []bool{true, false, true},
		Arr:    [3]int16{-1, 0, 1},
		Str:    "héllo",
		Nest:   []inner{{A: 1, B: 2, P: s}, {A: -1, B: 1 << 40}},
		Cplx:   complex(1.5, -2),
		F32:    0.25,
		U8:     200,
		Int:    -1 << 40,
		Flag:   true,
		Rng:    rand.New(rand.NewPCG(1, 2)),
	}
	for i := range 3000 {
		g.Big = append(g.Big, uint64(i)*0x9e3779b97f4a7c15)
	}
	g.Self = g
	g.Rng.Uint64() // a state moved on from its seed
	return g
}

func encode(t *testing.T, root any) []byte {
	t.Helper()
	var b bytes.Buffer
	n, err := Encode(&b, root)
	require.NoError(t, err)
	require.Equal(t, int64(b.Len()), n)
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	src := saved()
	b := encode(t, src)
	dst := fresh()
	bigArray := unsafe.SliceData(dst.Big)
	freshA, freshPtr := dst.A, dst.I.(*ptrImpl)
	require.NoError(t, Decode(bytes.NewReader(b), int64(len(b)), dst))

	// Shared pointers stay shared, and land in the fresh objects.
	require.Same(t, dst.A, dst.B)
	require.Same(t, freshA, dst.A)
	require.Same(t, freshPtr, dst.I)
	require.Same(t, dst.A, dst.I.(*ptrImpl).S)
	require.Same(t, dst.A, dst.Nest[0].P)
	require.Same(t, dst, dst.Self)
	require.Nil(t, dst.C)
	require.Nil(t, dst.Nest[1].P)
	require.Equal(t, shared{N: -3, Xs: []uint32{1, 2, 3}}, *dst.A)
	require.Equal(t, int64(9), dst.I.(*ptrImpl).K)
	require.Equal(t, valImpl{1, 2}, dst.V)
	require.Nil(t, dst.Nil)
	// Nil and empty stay distinct.
	require.Nil(t, dst.NilS)
	require.NotNil(t, dst.Empty)
	require.Empty(t, dst.Empty)
	require.Nil(t, dst.NilMap)
	require.NotNil(t, dst.EmptyM)
	require.Empty(t, dst.EmptyM)
	require.Equal(t, map[string][]int64{"a": nil, "b": {2}, "c": {}}, dst.M)
	require.Nil(t, dst.M["a"])
	require.NotNil(t, dst.M["c"])
	// Bulk values, reusing the fresh array.
	require.Equal(t, src.Big, dst.Big)
	require.Equal(t, bigArray, unsafe.SliceData(dst.Big))
	require.Equal(t, src.Pairs, dst.Pairs)
	require.Equal(t, src.Bools, dst.Bools)
	require.Equal(t, src.Arr, dst.Arr)
	require.Equal(t, src.Str, dst.Str)
	require.Equal(t, src.Cplx, dst.Cplx)
	require.Equal(t, src.F32, dst.F32)
	require.Equal(t, src.U8, dst.U8)
	require.Equal(t, src.Int, dst.Int)
	require.True(t, dst.Flag)
	require.Equal(t, src.Nest[1], dst.Nest[1])
	// Skipped: funcs and tagged fields keep the fresh graph's.
	require.Equal(t, 42, dst.F())
	require.Equal(t, 7, dst.Skip)

	// The stream does not depend on map order or on the graph's
	// addresses: the restored graph writes the same bytes.
	require.True(t, bytes.Equal(b, encode(t, src)))
	dst.Skip = 0
	require.True(t, bytes.Equal(b, encode(t, dst)))
	// The random source goes on where the saved one was.
	require.Equal(t, src.Rng.Uint64(), dst.Rng.Uint64())
}

// TestIntoEmpty restores into a graph with nothing allocated but the
// interfaces' types: targets and slices are made.
func TestIntoEmpty(t *testing.T) {
	b := encode(t, saved())
	dst := &graph{I: &ptrImpl{}, V: valImpl{}, Rng: rand.New(rand.NewPCG(0, 0))}
	require.NoError(t, Decode(bytes.NewReader(b), int64(len(b)), dst))
	require.Same(t, dst.A, dst.B)
	require.Same(t, dst, dst.Self)
	require.Equal(t, saved().Big, dst.Big)
	require.Equal(t, 3000, len(dst.Big))
}

type shapes struct {
	I namer
}

type withUnsafe struct {
	P unsafe.Pointer
}

type aliased struct {
	A, B []uint32
}

type arrayPtr struct {
	Arr [4]int64
	P   *int64
}

type holder struct{ P *arrayPtr }

func TestRefused(t *testing.T) {
	b := encode(t, &shapes{I: &ptrImpl{K: 1}})
	cases := []struct {
		name string
		err  error
		run  func() error
	}{
		{"interface nil in the fresh graph", ErrShape, func() error {
			return Decode(bytes.NewReader(b), int64(len(b)), &shapes{})
		}},
		{"interface of another type", ErrShape, func() error {
			return Decode(bytes.NewReader(b), int64(len(b)), &shapes{I: valImpl{}})
		}},
		{"another root type", ErrLayout, func() error {
			return Decode(bytes.NewReader(b), int64(len(b)), &graph{})
		}},
		{"cut short", ErrCorrupt, func() error {
			return Decode(bytes.NewReader(b[:len(b)-1]), int64(len(b)-1), &shapes{I: &ptrImpl{}})
		}},
		{"bytes left over", ErrCorrupt, func() error {
			x := append(append([]byte{}, b...), 0)
			return Decode(bytes.NewReader(x), int64(len(x)), &shapes{I: &ptrImpl{}})
		}},
		{"unsafe.Pointer", ErrShape, func() error {
			_, err := Encode(&bytes.Buffer{}, &withUnsafe{})
			return err
		}},
		{"two slices over one array", ErrShared, func() error {
			s := make([]uint32, 8)
			_, err := Encode(&bytes.Buffer{}, &aliased{A: s[:4], B: s[4:]})
			return err
		}},
		{"a pointer into a struct", ErrShared, func() error {
			a := &arrayPtr{}
			a.P = &a.Arr[1]
			_, err := Encode(&bytes.Buffer{}, &holder{P: a})
			return err
		}},
		{"not a pointer", ErrShape, func() error {
			_, err := Encode(&bytes.Buffer{}, shapes{})
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			require.ErrorIs(t, err, c.err)
		})
	}
}

// TestCorruptBytes flips every byte of a stream in turn: decoding
// refuses or restores, never panics.
func TestCorruptBytes(t *testing.T) {
	b := encode(t, saved())
	for i := range b {
		x := append([]byte{}, b...)
		x[i] ^= 0xa5
		_ = Decode(bytes.NewReader(x), int64(len(x)), fresh())
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(&testing.T{}, saved()))
	f.Add(encode(&testing.T{}, &graph{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Decode(bytes.NewReader(b), int64(len(b)), fresh())
	})
}
