package lexical

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"time"
	"unsafe"
)

// The lexical index's snapshot, vectors/lexical.index: the tables of Index as they are in
// memory, with the token of the database state they reflect and a CRC-32C of the whole. Reading
// the index from warren.db means analysing every chunk's terms again (0.8 s at 100,000
// chunks); the snapshot opens near the speed of reading its bytes. It is a cache: written after
// each read from warren.db, used only when its token is the database's token now, and
// anything wrong with it (torn, stale, another layout) means reading warren.db instead.

const (
	lexSnapshotFile    = "lexical.index"
	lexSnapshotMagic   = 0x5845_4C57 // "WLEX"
	lexSnapshotVersion = 2           // 2: the chunks' terms in order (Index.seq), for proximity
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// nativeLittleEndian: the snapshot is the tables' memory, which only a little-endian machine
// writes and reads.
var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// SnapshotPath is where the snapshot of the index lies in the workspace's vectors folder.
func SnapshotPath(vdir string) string { return filepath.Join(vdir, lexSnapshotFile) }

// tableBytes is a table's memory as bytes (the tables are written as they lie in memory, so a
// machine of the other byte order neither writes nor reads snapshots: nativeLittleEndian).
func tableBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// encodeLexSnapshot lays the index out: a header, the token, the totals, then each table as a
// length and its bytes, and the CRC of all that.
func encodeLexSnapshot(ix *Index) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, lexSnapshotMagic)
	b = le.AppendUint32(b, lexSnapshotVersion)
	b = appendBytes(b, lexSnapshotLayout())
	b = appendBytes(b, []byte(ix.token))
	b = le.AppendUint64(b, uint64(ix.totals.Chunks))
	b = le.AppendUint64(b, uint64(ix.totals.Heading))
	b = le.AppendUint64(b, uint64(ix.totals.Body))
	b = appendStrings(b, ix.terms)
	b = appendBytes(b, tableBytes(ix.info))
	b = appendBytes(b, tableBytes(ix.postings))
	b = appendBytes(b, tableBytes(ix.postingsAt))
	b = appendBytes(b, tableBytes(ix.entries))
	b = appendBytes(b, tableBytes(ix.lengths))
	b = appendBytes(b, tableBytes(ix.seq))
	b = appendStrings(b, ix.collections)
	docs := make([]string, len(ix.docs))
	for d, i := range ix.docs {
		docs[i] = d
	}
	b = appendStrings(b, docs)
	ids, sections := make([]string, len(ix.chunks)), make([]string, len(ix.chunks))
	fixed := make([]lexChunkFixed, len(ix.chunks))
	for i, c := range ix.chunks {
		ids[i], sections[i] = c.id, c.section
		fixed[i] = lexChunkFixed{c.rowid, c.length, c.collection, c.doc, c.lo, c.hi}
	}
	b = appendStrings(b, ids)
	b = appendStrings(b, sections)
	b = appendBytes(b, tableBytes(fixed))
	return le.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// lexSnapshotLayout is the size of each table's element: a build whose structs differ reads
// warren.db instead.
func lexSnapshotLayout() []byte {
	var b []byte
	for _, n := range []uintptr{unsafe.Sizeof(lexTermInfo{}), unsafe.Sizeof(lexPosting{}), unsafe.Sizeof(lexEntry{}), unsafe.Sizeof(lexChunkFixed{})} {
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	return b
}

// lexChunkFixed is lexChunk without its strings.
type lexChunkFixed struct {
	rowid                           int64
	length, collection, doc, lo, hi int32
}

func appendBytes(b, data []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(data)))
	return append(b, data...)
}

// appendStrings writes strings as their lengths (uint32 each) and their bytes, end to end.
func appendStrings(b []byte, ss []string) []byte {
	lens := make([]uint32, len(ss))
	n := 0
	for i, s := range ss {
		lens[i] = uint32(len(s))
		n += len(s)
	}
	b = appendBytes(b, tableBytes(lens))
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// writeLexSnapshot replaces the snapshot (a temporary file renamed over it). It is not synced:
// a snapshot torn by a crash fails its CRC and is read from warren.db again.
func writeLexSnapshot(vdir string, ix *Index) error {
	if vdir == "" || !nativeLittleEndian {
		return nil
	}
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return err
	}
	path := SnapshotPath(vdir)
	removeStaleSnapshotTemps(vdir, time.Now().Add(-staleTempAge))
	tmp, err := os.CreateTemp(vdir, "."+lexSnapshotFile+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(encodeLexSnapshot(ix))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// staleTempAge: a snapshot's temporary file older than this was left by a process that died
// before renaming it (a write takes well under a second); younger ones may be another
// process's write in progress.
const staleTempAge = 10 * time.Minute

// removeStaleSnapshotTemps removes the snapshot's temporary files last written before cutoff.
func removeStaleSnapshotTemps(vdir string, cutoff time.Time) {
	names, _ := filepath.Glob(filepath.Join(vdir, "."+lexSnapshotFile+".tmp-*"))
	for _, name := range names {
		if info, err := os.Stat(name); err == nil && info.ModTime().Before(cutoff) {
			os.Remove(name)
		}
	}
}

// errStaleSnapshot: the snapshot reflects another state of the database than token.
var errStaleSnapshot = errors.New("the lexical snapshot is of another state of the database")

// snapshotToken reads the token at the head of a snapshot, without the rest.
func snapshotToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	next := func(n uint64) ([]byte, error) {
		if n > 1<<20 {
			return nil, errors.New("the lexical snapshot's head is damaged")
		}
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return b, err
	}
	length := func() (uint64, error) {
		b, err := next(8)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b), nil
	}
	head, err := next(8) // magic and version
	if err != nil {
		return "", err
	}
	if binary.LittleEndian.Uint32(head) != lexSnapshotMagic || binary.LittleEndian.Uint32(head[4:]) != lexSnapshotVersion {
		return "", errors.New("the lexical snapshot has another layout")
	}
	for range 2 { // the layout, then the token
		n, err := length()
		if err != nil {
			return "", err
		}
		if head, err = next(n); err != nil {
			return "", err
		}
	}
	return string(head), nil
}

// readLexSnapshot reads the snapshot if it reflects the database state token. A snapshot of
// another state (as after every write) is told by its head alone.
func readLexSnapshot(vdir, token string) (*Index, error) {
	if vdir == "" || !nativeLittleEndian {
		return nil, os.ErrNotExist
	}
	if got, err := snapshotToken(SnapshotPath(vdir)); err != nil {
		return nil, err
	} else if got != token {
		return nil, errStaleSnapshot
	}
	raw, err := os.ReadFile(SnapshotPath(vdir))
	if err != nil {
		return nil, err
	}
	r := snapshotReader{b: raw}
	if len(raw) < 12 || binary.LittleEndian.Uint32(raw[len(raw)-4:]) != crc32.Checksum(raw[:len(raw)-4], crcTable) {
		return nil, errors.New("the lexical snapshot is damaged (checksum)")
	}
	r.b = raw[:len(raw)-4]
	if r.u32() != lexSnapshotMagic || r.u32() != lexSnapshotVersion || string(r.bytes()) != string(lexSnapshotLayout()) {
		return nil, errors.New("the lexical snapshot has another layout")
	}
	if string(r.bytes()) != token {
		return nil, errStaleSnapshot
	}
	ix := &Index{token: token}
	ix.totals = Totals{Chunks: int64(r.u64()), Heading: int64(r.u64()), Body: int64(r.u64())}
	ix.terms = r.strings()
	ix.info = readTable[lexTermInfo](&r)
	ix.postings = readTable[lexPosting](&r)
	ix.postingsAt = readTable[int32](&r)
	ix.entries = readTable[lexEntry](&r)
	ix.lengths = readTable[int32](&r)
	ix.seq = readTable[uint16](&r)
	ix.collections = r.strings()
	docs := r.strings()
	ids, sections := r.strings(), r.strings()
	fixed := readTable[lexChunkFixed](&r)
	if r.err != nil || len(r.b) != 0 {
		return nil, errors.New("the lexical snapshot is damaged (layout)")
	}
	n := len(fixed)
	if len(ids) != n || len(sections) != n || len(ix.lengths) != n || len(ix.info) != len(ix.terms) ||
		len(ix.postingsAt) != len(ix.terms)+1 || len(ix.postings) != len(ix.entries) {
		return nil, errors.New("the lexical snapshot is damaged (table sizes)")
	}
	ix.ids = make(map[string]int32, len(ix.terms))
	for i, t := range ix.terms {
		ix.ids[t] = int32(i)
	}
	ix.docs = make(map[string]int32, len(docs))
	for i, d := range docs {
		ix.docs[d] = int32(i)
	}
	ix.chunks = make([]lexChunk, n)
	seq := 0 // each chunk's terms in order follow the last's: length + 1 of them
	for i, f := range fixed {
		if f.lo < 0 || f.lo > f.hi || int(f.hi) > len(ix.entries) || f.length < 0 || seq+int(f.length)+1 > len(ix.seq) {
			return nil, errors.New("the lexical snapshot is damaged (chunk entries)")
		}
		ix.chunks[i] = lexChunk{rowid: f.rowid, id: ids[i], length: f.length, collection: f.collection, doc: f.doc, section: sections[i], lo: f.lo, hi: f.hi, seq: int32(seq)}
		seq += int(f.length) + 1
	}
	if seq != len(ix.seq) {
		return nil, errors.New("the lexical snapshot is damaged (terms in order)")
	}
	ix.markIdentity() // derived, not stored: a snapshot of an earlier warren serves as it is
	return ix, nil
}

// snapshotReader takes a snapshot apart; the first error sticks.
type snapshotReader struct {
	b   []byte
	err error
}

func (r *snapshotReader) take(n uint64) []byte {
	if r.err != nil || n > uint64(len(r.b)) {
		if r.err == nil {
			r.err = fmt.Errorf("the lexical snapshot is cut short")
		}
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *snapshotReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *snapshotReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *snapshotReader) bytes() []byte { return r.take(r.u64()) }

// readTable copies a table out of the snapshot (the snapshot's bytes are not aligned for T).
func readTable[T any](r *snapshotReader) []T {
	raw := r.bytes()
	size := int(unsafe.Sizeof(*new(T)))
	if r.err != nil || len(raw)%size != 0 {
		if r.err == nil {
			r.err = fmt.Errorf("the lexical snapshot holds a table of another layout")
		}
		return nil
	}
	out := make([]T, len(raw)/size)
	copy(tableBytes(out), raw)
	return out
}

// strings reads what appendStrings wrote, as substrings of one string.
func (r *snapshotReader) strings() []string {
	lens := readTable[uint32](r)
	all := string(r.bytes())
	if r.err != nil {
		return nil
	}
	out := make([]string, len(lens))
	at := 0
	for i, n := range lens {
		if at+int(n) > len(all) {
			r.err = fmt.Errorf("the lexical snapshot's strings are cut short")
			return nil
		}
		out[i] = all[at : at+int(n)]
		at += int(n)
	}
	if at != len(all) {
		r.err = fmt.Errorf("the lexical snapshot's strings do not add up")
	}
	return out
}
