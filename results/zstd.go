package results

import (
	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// zstdCodec is the ZSTD codec results files are written with: the same
// bytes as parquet-go's zstd.Codec{Level: zstd.SpeedDefault} (tested), with
// less memory, and one pool of encoders for the whole process instead of
// one per file, which (unlike a sync.Pool) a garbage collection does not
// empty: a new encoder allocates its 2 MiB history and tables again.
//
// parquet-go's codec keeps an encoder of klauspost/compress's default
// window (8 MiB), whose history buffer is 16 MiB, although a results
// file's pages are far smaller. An EncodeAll of n bytes writes the same
// frame whatever the window, as long as n is at most the window (a single
// segment; matches cannot reach further back than n): pages of at most
// smallWindow bytes go to encoders of that window, larger ones to the
// default window's.
type zstdCodec struct {
	small, large chan *kzstd.Encoder // idle encoders
}

// smallWindow is the window of the encoders for pages of up to its size.
const smallWindow = 1 << 20

// idleEncoders is how many idle encoders of each window the codec keeps.
const idleEncoders = 4

var resultsZstd = &zstdCodec{small: make(chan *kzstd.Encoder, idleEncoders), large: make(chan *kzstd.Encoder, idleEncoders)}

func (c *zstdCodec) String() string                            { return "ZSTD" }
func (c *zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	pool := c.large
	if len(src) <= smallWindow {
		pool = c.small
	}
	var e *kzstd.Encoder
	select {
	case e = <-pool:
	default:
		opts := []kzstd.EOption{kzstd.WithEncoderConcurrency(1), kzstd.WithEncoderLevel(zstd.SpeedDefault),
			kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false)}
		if pool == c.small {
			opts = append(opts, kzstd.WithWindowSize(smallWindow))
		}
		var err error
		if e, err = kzstd.NewWriter(nil, opts...); err != nil {
			return nil, err
		}
	}
	out := e.EncodeAll(src, dst[:0])
	select {
	case pool <- e:
	default: // enough idle ones
	}
	return out, nil
}

// Decode is parquet-go's.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return decodeZstd.Decode(dst, src) }

var decodeZstd = &zstd.Codec{}
