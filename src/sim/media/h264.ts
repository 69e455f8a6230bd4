// A real, decodable H.264 stream for the simulated videos, written bit by bit: Constrained
// Baseline, CAVLC, one slice per picture. The first picture is an IDR whose macroblocks are all
// Intra 16x16 with DC prediction and no residual (one byte each): every sample predicts 128, so
// it decodes to a uniform grey frame. Each later picture is a P slice that skips every
// macroblock (a few bytes). Browsers decode it (the web cabinet's <video> reaches
// HAVE_CURRENT_DATA, test/browser/); players show a grey clip of the right size and length.
// The seed travels in an SEI "user data unregistered" message, so videos differ byte-wise.
// ITU-T H.264 (08/2021) §7.3 is the syntax followed here.

/** Bits, most significant first, with the Exp-Golomb codes of §9.1. */
class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  bit(value: number): this {
    this.current = (this.current << 1) | (value & 1);
    if (++this.used === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.used = 0;
    }
    return this;
  }

  /** u(n) */
  bits(count: number, value: number): this {
    for (let shift = count - 1; shift >= 0; shift--) this.bit(Math.floor(value / 2 ** shift) % 2);
    return this;
  }

  /** ue(v) */
  ue(value: number): this {
    const code = value + 1;
    const length = Math.floor(Math.log2(code));
    return this.bits(length, 0).bits(length + 1, code);
  }

  /** se(v) */
  se(value: number): this {
    return this.ue(value > 0 ? 2 * value - 1 : -2 * value);
  }

  /** rbsp_trailing_bits(): a one, then zeros to the byte boundary. */
  trailing(): Buffer {
    this.bit(1);
    while (this.used !== 0) this.bit(0);
    return Buffer.from(this.bytes);
  }
}

/** A NAL unit: its header byte, then the payload with emulation prevention (00 00 0x → 00 00 03 0x, x ≤ 3). */
function nalUnit(refIdc: number, type: number, rbsp: Buffer): Buffer {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(byte);
    zeros = byte === 0 ? zeros + 1 : 0;
  }
  return Buffer.from(out);
}

/** Frame numbers are 16 bits (log2_max_frame_num = 16): far more pictures than any clip has. */
const frameNumBits = 16;

export interface H264Stream {
  readonly sps: Buffer;
  readonly pps: Buffer;
  /** One access unit per picture, each a list of NAL units (without length prefixes). */
  readonly pictures: Buffer[][];
  readonly profile: number;
  readonly compatibility: number;
  readonly level: number;
}

/** The smallest level whose frame size (in macroblocks) holds this picture (Table A-1). */
function levelFor(macroblocks: number): number {
  const levels: [number, number][] = [[1620, 30], [3600, 31], [5120, 32], [8192, 40], [22080, 50], [36864, 51]];
  return levels.find(([frameSize]) => macroblocks <= frameSize)?.[1] ?? 52;
}

export function h264Stream(options: { width: number; height: number; pictures: number; seed: string }): H264Stream {
  const width = Math.max(2, options.width);
  const height = Math.max(2, options.height);
  const mbWidth = Math.ceil(width / 16);
  const mbHeight = Math.ceil(height / 16);
  const macroblocks = mbWidth * mbHeight;
  // 4:2:0 crops in units of 2 samples: an odd size is shown one sample smaller.
  const cropRight = Math.floor((mbWidth * 16 - width) / 2);
  const cropBottom = Math.floor((mbHeight * 16 - height) / 2);
  const profile = 66; // Baseline, with constraint_set0 and set1: Constrained Baseline
  const compatibility = 0xc0;
  const level = levelFor(macroblocks);

  const sps = new BitWriter()
    .bits(8, profile)
    .bits(8, compatibility)
    .bits(8, level)
    .ue(0) // seq_parameter_set_id
    .ue(frameNumBits - 4) // log2_max_frame_num_minus4
    .ue(2) // pic_order_cnt_type: output order is decoding order
    .ue(1) // max_num_ref_frames
    .bit(0) // gaps_in_frame_num_value_allowed_flag
    .ue(mbWidth - 1)
    .ue(mbHeight - 1)
    .bit(1) // frame_mbs_only_flag
    .bit(1); // direct_8x8_inference_flag
  if (cropRight > 0 || cropBottom > 0) sps.bit(1).ue(0).ue(cropRight).ue(0).ue(cropBottom);
  else sps.bit(0);
  sps.bit(0); // vui_parameters_present_flag

  const pps = new BitWriter()
    .ue(0) // pic_parameter_set_id
    .ue(0) // seq_parameter_set_id
    .bit(0) // entropy_coding_mode_flag: CAVLC
    .bit(0) // bottom_field_pic_order_in_frame_present_flag
    .ue(0) // num_slice_groups_minus1
    .ue(0) // num_ref_idx_l0_default_active_minus1
    .ue(0) // num_ref_idx_l1_default_active_minus1
    .bit(0) // weighted_pred_flag
    .bits(2, 0) // weighted_bipred_idc
    .se(0) // pic_init_qp_minus26
    .se(0) // pic_init_qs_minus26
    .se(0) // chroma_qp_index_offset
    .bit(1) // deblocking_filter_control_present_flag
    .bit(0) // constrained_intra_pred_flag
    .bit(0); // redundant_pic_cnt_present_flag

  const idr = new BitWriter()
    .ue(0) // first_mb_in_slice
    .ue(7) // slice_type: I (all slices of the picture)
    .ue(0) // pic_parameter_set_id
    .bits(frameNumBits, 0) // frame_num
    .ue(0) // idr_pic_id
    .bit(0) // no_output_of_prior_pics_flag
    .bit(0) // long_term_reference_flag
    .se(0) // slice_qp_delta
    .ue(1); // disable_deblocking_filter_idc: nothing to smooth
  for (let index = 0; index < macroblocks; index++) {
    idr
      .ue(3) // mb_type I_16x16_2_0_0: DC prediction, no coded luma or chroma blocks
      .ue(0) // intra_chroma_pred_mode: DC
      .se(0) // mb_qp_delta
      .bit(1); // Intra16x16DCLevel coeff_token: TotalCoeff 0 (nC 0: every neighbour has none)
  }

  const seed = Buffer.from(options.seed, 'utf8').subarray(0, 200);
  const uuid = Buffer.from('67617465776179736d2d766964656f31', 'hex'); // "gatewaysm-video1"
  const payload = Buffer.concat([uuid, seed]);
  const sei = Buffer.concat([Buffer.from([5, payload.length]), payload, Buffer.from([0x80])]); // user_data_unregistered, then rbsp_trailing_bits

  const pictures: Buffer[][] = [[nalUnit(0, 6, sei), nalUnit(3, 5, idr.trailing())]];
  for (let index = 1; index < options.pictures; index++) {
    const skipped = new BitWriter()
      .ue(0) // first_mb_in_slice
      .ue(5) // slice_type: P (all slices of the picture)
      .ue(0) // pic_parameter_set_id
      .bits(frameNumBits, index % 2 ** frameNumBits) // frame_num: every picture is a reference
      .bit(0) // num_ref_idx_active_override_flag
      .bit(0) // ref_pic_list_modification_flag_l0
      .bit(0) // adaptive_ref_pic_marking_mode_flag: sliding window
      .se(0) // slice_qp_delta
      .ue(1) // disable_deblocking_filter_idc
      .ue(macroblocks); // mb_skip_run: every macroblock copies the previous picture
    pictures.push([nalUnit(2, 1, skipped.trailing())]);
  }
  return { sps: nalUnit(3, 7, sps.trailing()), pps: nalUnit(3, 8, pps.trailing()), pictures, profile, compatibility, level };
}
