package baseline

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// The log beside a table:
//
//	magic             as given (its last byte the version)
//	8 bytes           the generation of the table it extends
//	uint32            crc32c of magic and generation
//	frames            each: uint32 n, n bytes, uint32 n, uint32 crc32c
//	                  of the n bytes, "blf\n"
//
// A frame is whole or it is not there: a reader stops at the first frame
// that fails its checks (a torn last write), and the next writer cuts
// the log back to the end of the last whole one before it appends.

// frameMark ends every frame.
const frameMark = "blf\n"

// frameOver is a frame's size beyond its bytes.
const frameOver = 4 + 4 + 4 + len(frameMark)

// GenLen is the length of a table's generation.
const GenLen = 8

// LogHeader is the start of a log extending the table of generation gen.
func LogHeader(magic string, gen []byte) []byte {
	b := append([]byte(magic), gen...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// LogGen checks a log's header and returns the generation it names and
// where its frames start.
func LogGen(data []byte, magicLen int) (gen []byte, start int, err error) {
	start = magicLen + GenLen + 4
	if len(data) < start {
		return nil, 0, ErrDamaged
	}
	if binary.LittleEndian.Uint32(data[start-4:]) != crc32.Checksum(data[:start-4], castagnoli) {
		return nil, 0, ErrDamaged
	}
	return data[magicLen : magicLen+GenLen], start, nil
}

// AppendFrame appends body as one frame.
func AppendFrame(buf, body []byte) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(body)))
	buf = append(buf, body...)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(body)))
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(body, castagnoli))
	return append(buf, frameMark...)
}

// frameAt checks the frame at off and returns its bytes and its end.
func frameAt(data []byte, off int) ([]byte, int, bool) {
	if len(data)-off < frameOver {
		return nil, 0, false
	}
	n := int(binary.LittleEndian.Uint32(data[off:]))
	end := off + n + frameOver
	if n < 0 || end > len(data) || end < off {
		return nil, 0, false
	}
	body := data[off+4 : off+4+n]
	t := data[off+4+n:]
	if int(binary.LittleEndian.Uint32(t)) != n || string(t[8:12]) != frameMark ||
		binary.LittleEndian.Uint32(t[4:]) != crc32.Checksum(body, castagnoli) {
		return nil, 0, false
	}
	return body, end, true
}

// Frames returns the whole frames from start on, in order, and the end
// of the last one: bytes past it are a torn write.
func Frames(data []byte, start int) (frames [][]byte, end int) {
	end = start
	for {
		body, next, ok := frameAt(data, end)
		if !ok {
			return frames, end
		}
		frames = append(frames, body)
		end = next
	}
}

// LastFrame returns the last frame when the log ends with a whole one,
// read from the end: a reader that wants only the newest frame reads
// its bytes alone. ok is false when the log ends otherwise (a torn
// write, or no frame): Frames tells then.
func LastFrame(data []byte, start int) (body []byte, ok bool) {
	if len(data)-start < frameOver || !bytes.HasSuffix(data, []byte(frameMark)) {
		return nil, false
	}
	n := int(binary.LittleEndian.Uint32(data[len(data)-frameOver+4:]))
	off := len(data) - frameOver - n
	if n < 0 || off < start {
		return nil, false
	}
	body, end, ok := frameAt(data, off)
	if !ok || end != len(data) {
		return nil, false
	}
	return body, true
}
