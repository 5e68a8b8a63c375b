package vectors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"unsafe"

	"warren/kb/hnsw"
)

// The vector files of a collection, in the workspace's vectors/ folder:
//
//	<collection>.vec   its vectors, normalised, as rows of little-endian float32, appended to
//	<collection>.log   what each row is: a header, then one batch per save (chunk IDs added,
//	                   rows removed, the collection generation reached), appended to
//	<collection>.hnsw  the approximate index over the first rows (kb/hnsw), rewritten now and
//	                   then; it carries the epoch of the log it was built for
//	<collection>.lock  held (flock) while the files are appended to or replaced
//
// A save appends the new rows and one batch, never rewriting what is there; removed rows stay
// in the .vec file as tombstones until a compaction rewrites both files (a new epoch). Opening
// reads each file with one read. Every batch carries a CRC-32C of itself and of the rows it
// added, so a torn append (a crash, a full disk) is found on open: the files count only up to
// their last whole batch, and unless that batch reached the generation warren.db records the
// collection is rebuilt from warren.db, which stays the source of truth.

const (
	logMagic     = 0x43455657 // "WVEC"
	logVersion   = 1
	logHeaderLen = 24
	batchMagic   = 0x48435442 // "BTCH"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func vecPath(dir, c string) string   { return filepath.Join(dir, c+".vec") }
func logPath(dir, c string) string   { return filepath.Join(dir, c+".log") }
func graphPath(dir, c string) string { return filepath.Join(dir, c+".hnsw") }
func lockPath(dir, c string) string  { return filepath.Join(dir, c+".lock") }

// fileState is what the files on disk hold, as this process last read or wrote them.
type fileState struct {
	epoch   uint64
	gen     int   // generation of the last batch
	rows    int   // rows in the .vec file that batches account for
	logSize int64 // bytes of the .log file up to the end of its last batch
}

// batch is one save: rows added at the end, then rows removed (tombstoned), which may be
// rows of this batch.
type batch struct {
	gen        int
	rowsBefore int
	removed    []uint32
	added      []string // chunk IDs of the rows rowsBefore … rowsBefore+len(added)-1
	vecCRC     uint32
}

func logHeader(dim int, epoch uint64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, logMagic)
	b = binary.LittleEndian.AppendUint32(b, logVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(dim))
	b = binary.LittleEndian.AppendUint32(b, 0)
	return binary.LittleEndian.AppendUint64(b, epoch)
}

func (b *batch) encode() []byte {
	out := binary.LittleEndian.AppendUint32(nil, batchMagic)
	out = binary.LittleEndian.AppendUint64(out, uint64(b.gen))
	out = binary.LittleEndian.AppendUint32(out, uint32(b.rowsBefore))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(b.removed)))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(b.added)))
	out = binary.LittleEndian.AppendUint32(out, b.vecCRC)
	for _, r := range b.removed {
		out = binary.LittleEndian.AppendUint32(out, r)
	}
	for _, id := range b.added {
		out = binary.AppendUvarint(out, uint64(len(id)))
		out = append(out, id...)
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
}

// parsedLog is a log read up to its last whole batch.
type parsedLog struct {
	dim     int
	epoch   uint64
	batches []batch
	size    int64 // bytes up to the end of the last whole batch
}

// parseLog reads batches until the end or the first torn or damaged one. The IDs are
// substrings of one string made from the whole file, so they cost no allocation each.
func parseLog(raw []byte) (*parsedLog, error) {
	if len(raw) < logHeaderLen || binary.LittleEndian.Uint32(raw) != logMagic || binary.LittleEndian.Uint32(raw[4:]) != logVersion {
		return nil, errors.New("not a vector log of this version")
	}
	p := &parsedLog{dim: int(binary.LittleEndian.Uint32(raw[8:])), epoch: binary.LittleEndian.Uint64(raw[16:]), size: logHeaderLen}
	text := string(raw)
	off := logHeaderLen
	for {
		b, n, ok := parseBatch(raw[off:], text[off:])
		if !ok {
			return p, nil
		}
		p.batches = append(p.batches, b)
		off += n
		p.size = int64(off)
	}
}

func parseBatch(raw []byte, text string) (batch, int, bool) {
	const fixed = 28
	if len(raw) < fixed+4 || binary.LittleEndian.Uint32(raw) != batchMagic {
		return batch{}, 0, false
	}
	b := batch{
		gen:        int(binary.LittleEndian.Uint64(raw[4:])),
		rowsBefore: int(binary.LittleEndian.Uint32(raw[12:])),
		vecCRC:     binary.LittleEndian.Uint32(raw[24:]),
	}
	nRemoved, nAdded := int(binary.LittleEndian.Uint32(raw[16:])), int(binary.LittleEndian.Uint32(raw[20:]))
	off := fixed
	if nRemoved > (len(raw)-off)/4 || nAdded > len(raw)-off {
		return batch{}, 0, false
	}
	b.removed = make([]uint32, nRemoved)
	for i := range b.removed {
		b.removed[i] = binary.LittleEndian.Uint32(raw[off:])
		off += 4
	}
	b.added = make([]string, nAdded)
	for i := range b.added {
		l, k := binary.Uvarint(raw[off:])
		if k <= 0 || l > uint64(len(raw)-off-k) {
			return batch{}, 0, false
		}
		off += k
		b.added[i] = text[off : off+int(l)]
		off += int(l)
	}
	if len(raw) < off+4 || crc32.Checksum(raw[:off], crcTable) != binary.LittleEndian.Uint32(raw[off:]) {
		return batch{}, 0, false
	}
	return b, off + 4, true
}

// floatBytes views floats as their bytes, in the machine's order (little-endian: checked
// by nativeLittleEndian before any file is read or written).
func floatBytes(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

var nativeLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readVectors reads the first rows×dim floats of a .vec file with one read.
func readVectors(path string, rows, dim int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Room for growth: the next ingest appends without copying at once.
	data := make([]float32, rows*dim, rows*dim+rows*dim/8)
	if _, err := io.ReadFull(f, floatBytes(data)); err != nil {
		return nil, fmt.Errorf("couldn't read %s: %w", path, err)
	}
	return data, nil
}

// collectionFiles is a collection as read from its files, before it is checked against
// warren.db.
type collectionFiles struct {
	log  *parsedLog
	data []float32
	ids  []string
	dead []bool
	live int
}

// readCollectionFiles reads the .log and .vec files and replays the batches, verifying the
// checksum of every batch's rows.
func readCollectionFiles(dir, name string) (*collectionFiles, error) {
	if !nativeLittleEndian {
		return nil, errors.New("vector files are little-endian: rebuilt from warren.db on this machine")
	}
	raw, err := os.ReadFile(logPath(dir, name))
	if err != nil {
		return nil, err
	}
	log, err := parseLog(raw)
	if err != nil {
		return nil, err
	}
	if len(log.batches) == 0 {
		return nil, errors.New("vector log holds no whole batch")
	}
	last := log.batches[len(log.batches)-1]
	rows := last.rowsBefore + len(last.added)
	data, err := readVectors(vecPath(dir, name), rows, log.dim)
	if err != nil {
		return nil, err
	}
	cf := &collectionFiles{log: log, data: data, ids: make([]string, 0, rows), dead: make([]bool, rows, rows+rows/8)}
	for _, b := range log.batches {
		if b.rowsBefore != len(cf.ids) {
			return nil, errors.New("vector log batches do not follow each other")
		}
		lo, hi := b.rowsBefore*log.dim, (b.rowsBefore+len(b.added))*log.dim
		if crc32.Checksum(floatBytes(data[lo:hi]), crcTable) != b.vecCRC {
			return nil, errors.New("vector file does not match its log (torn or damaged)")
		}
		cf.ids = append(cf.ids, b.added...)
		for _, r := range b.removed {
			if int(r) >= len(cf.ids) || cf.dead[r] {
				return nil, errors.New("vector log removes a row it never added")
			}
			cf.dead[r] = true
		}
	}
	for _, d := range cf.dead {
		if !d {
			cf.live++
		}
	}
	return cf, nil
}

// writeCollectionFiles replaces a collection's .vec and .log files with its rows (removed
// ones listed as such) as one batch at generation gen, under a new epoch, through temporary
// files renamed into place.
func writeCollectionFiles(dir, name string, dim, gen int, data []float32, ids []string, removed []uint32) (fileState, error) {
	st := fileState{epoch: rand.Uint64() | 1, gen: gen, rows: len(ids)}
	vtmp, ltmp := vecPath(dir, name)+".tmp", logPath(dir, name)+".tmp"
	b := batch{gen: gen, added: ids, removed: removed, vecCRC: crc32.Checksum(floatBytes(data[:len(ids)*dim]), crcTable)}
	logBytes := append(logHeader(dim, st.epoch), b.encode()...)
	st.logSize = int64(len(logBytes))
	if err := writeFile(vtmp, floatBytes(data[:len(ids)*dim])); err != nil {
		return st, err
	}
	if err := writeFile(ltmp, logBytes); err != nil {
		os.Remove(vtmp)
		return st, err
	}
	// The .vec first: a crash between the two renames leaves an old log whose checksums
	// refuse the new rows, so the collection is rebuilt, never misread.
	if err := os.Rename(vtmp, vecPath(dir, name)); err != nil {
		return st, fmt.Errorf("couldn't replace the vectors of %s: %w", name, err)
	}
	if err := os.Rename(ltmp, logPath(dir, name)); err != nil {
		return st, fmt.Errorf("couldn't replace the vector log of %s: %w", name, err)
	}
	return st, nil
}

func writeFile(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("couldn't create %s: %w", path, err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("couldn't write %s: %w", path, err)
	}
	return f.Close()
}

// appendBatch appends rows (data from row b.rowsBefore on) and their batch to files that
// hold exactly st; it reports false, writing nothing, when they do not (another process
// replaced or extended them), so the caller rewrites them whole.
func appendBatch(dir, name string, dim int, st fileState, b batch, data []float32) (fileState, bool, error) {
	lf, err := os.OpenFile(logPath(dir, name), os.O_RDWR, 0)
	if err != nil {
		return st, false, nil
	}
	defer lf.Close()
	head := make([]byte, logHeaderLen)
	info, err := lf.Stat()
	if err != nil || info.Size() != st.logSize {
		return st, false, nil
	}
	if _, err := io.ReadFull(lf, head); err != nil || !bytes.Equal(head, logHeader(dim, st.epoch)) {
		return st, false, nil
	}
	vf, err := os.OpenFile(vecPath(dir, name), os.O_RDWR, 0)
	if err != nil {
		return st, false, nil
	}
	defer vf.Close()
	rows := data[b.rowsBefore*dim : (b.rowsBefore+len(b.added))*dim]
	b.vecCRC = crc32.Checksum(floatBytes(rows), crcTable)
	// Whatever lies past the rows the log accounts for is a torn earlier append: overwritten.
	if _, err := vf.WriteAt(floatBytes(rows), int64(b.rowsBefore)*int64(dim)*4); err != nil {
		return st, false, fmt.Errorf("couldn't append to the vectors of %s: %w", name, err)
	}
	enc := b.encode()
	if _, err := lf.WriteAt(enc, st.logSize); err != nil {
		return st, false, fmt.Errorf("couldn't append to the vector log of %s: %w", name, err)
	}
	st.gen, st.rows, st.logSize = b.gen, b.rowsBefore+len(b.added), st.logSize+int64(len(enc))
	return st, true, nil
}

// The .hnsw file: the epoch of the vector files it indexes (two words), then the graph's own
// encoding (kb/hnsw).

func writeGraphFile(dir, name string, epoch uint64, g *hnsw.Graph) error {
	tmp := graphPath(dir, name) + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(binary.LittleEndian.AppendUint64(nil, epoch))
	if _, err := g.WriteTo(w); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, graphPath(dir, name))
}

// readGraph reads a collection's graph with one read, when it was built for the vector
// files of this epoch and indexes no more than their rows.
func readGraph(dir, name string, epoch uint64, rows, dim int) (*hnsw.Graph, bool) {
	f, err := os.Open(graphPath(dir, name))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false
	}
	words, err := hnsw.ReadWords(f, info.Size())
	if err != nil || len(words) < 2 || uint64(words[0])|uint64(words[1])<<32 != epoch {
		return nil, false
	}
	g, err := hnsw.Decode(words[2:])
	if err != nil || g.Len() > rows || g.Dim() != dim {
		return nil, false
	}
	return g, true
}
