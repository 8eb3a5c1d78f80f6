//! An MPNet encoder over candle (all-mpnet-base-v2's architecture): BERT's post-norm layers,
//! positions counted from the padding id as RoBERTa does, no token types, and a relative
//! position bias (T5's bidirectional buckets) shared by every layer and added to the attention
//! scores. It reads the Hugging Face `config.json` and the weight names of `MPNetModel`
//! (`embeddings.*`, `encoder.layer.N.attention.attn.{q,k,v,o}`, `encoder.relative_attention_bias`).

use super::bert::{
    Act, AttentionNames, Heads, Layer, LayerShape, Words, load_embeddings, load_layers,
    under_prefix,
};
use candle_core::{Device, Module, Tensor};
use candle_nn::{LayerNorm, VarBuilder};
use serde::Deserialize;

/// The fields of a Hugging Face MPNet `config.json` that the encoder uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    #[serde(default = "default_buckets")]
    pub relative_attention_num_buckets: usize,
    #[serde(default = "default_pad")]
    pub pad_token_id: u32,
}

fn default_eps() -> f64 {
    1e-5
}
fn default_act() -> String {
    "gelu".to_string()
}
fn default_buckets() -> usize {
    32
}
fn default_pad() -> u32 {
    1
}

/// MPNet's attention weight names (`MPNetAttention`: `attn.{q,k,v,o}`, then the norm).
const MPNET_NAMES: AttentionNames = AttentionNames {
    q: "attention.attn.q",
    k: "attention.attn.k",
    v: "attention.attn.v",
    out: "attention.attn.o",
    norm: "attention.LayerNorm",
};

/// The largest distance the relative position buckets tell apart (`MPNetEncoder`'s fixed 128).
const MAX_DISTANCE: f64 = 128.0;

/// The encoder: token ids and an attention mask in, the last hidden state out.
pub(crate) struct MpNet {
    word: Words,
    position: Tensor,
    norm: LayerNorm,
    layers: Vec<Layer>,
    /// `[buckets, heads]`.
    relative: Tensor,
    buckets: usize,
    pad: u32,
    heads: Heads,
    act: Act,
    device: Device,
}

impl MpNet {
    /// Builds the encoder from `config` and the weights in `vb` (names without an `mpnet.`
    /// prefix; one is tried as a fallback), its layers' dense weights in `precision`.
    pub(crate) fn load(
        vb: VarBuilder<'_>,
        config: &Config,
        precision: super::Precision,
    ) -> candle_core::Result<Self> {
        let vb = under_prefix(vb, "mpnet");
        let h = config.hidden_size;
        let heads = config.num_attention_heads;
        if heads == 0 || !h.is_multiple_of(heads) || config.relative_attention_num_buckets < 4 {
            return Err(candle_core::Error::Msg(format!(
                "hidden_size {h} is not a multiple of num_attention_heads {heads}, or too few \
                 relative attention buckets"
            )));
        }
        let emb = vb.pp("embeddings");
        let (eps, positions) = (config.layer_norm_eps, config.max_position_embeddings);
        let sizes = (config.vocab_size, positions, h);
        let (word, position, norm) = load_embeddings(&emb, sizes, eps, precision)?;
        let shape = LayerShape {
            hidden: h,
            intermediate: config.intermediate_size,
            eps,
            precision,
        };
        let layers = load_layers(&vb, &MPNET_NAMES, config.num_hidden_layers, shape)?;
        let buckets = config.relative_attention_num_buckets;
        let relative = vb.get((buckets, heads), "encoder.relative_attention_bias.weight")?;
        Ok(MpNet {
            word,
            position,
            norm,
            layers,
            relative,
            buckets,
            pad: config.pad_token_id,
            heads: Heads {
                count: heads,
                dim: h / heads,
            },
            act: Act::parse(&config.hidden_act)?,
            device: vb.device().clone(),
        })
    }

    /// The device the weights live on.
    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// `ids`: `[batch, seq]` u32 token ids; `mask`: `[batch, seq]` f32, 1 for real tokens and 0
    /// for padding (which must come after a text's real tokens). Returns the last hidden state,
    /// `[batch, seq, hidden]`. Padding positions are never attended to.
    pub(crate) fn forward(&self, ids: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t) = ids.dims2()?;
        // Real tokens sit at pad + 1, pad + 2, …; padding at pad (RoBERTa's position ids).
        let first = self.pad as usize + 1;
        if first + t > self.position.dim(0)? {
            return Err(candle_core::Error::Msg(format!(
                "{t} tokens exceed the model's {} positions",
                self.position.dim(0)?
            )));
        }
        let x = self
            .word
            .forward(ids)?
            .broadcast_add(&self.position.narrow(0, first, t)?)?;
        let mut x = self.norm.forward(&x)?;
        // Additive attention bias: 0 for real keys, -1e9 for padding; [b, 1, 1, t].
        let pad_bias = mask.affine(1e9, -1e9)?.reshape((b, 1, 1, t))?;
        // The relative position bias, [1, heads, t, t], plus the padding bias.
        let bias = self.position_bias(t)?.broadcast_add(&pad_bias)?;
        for layer in &self.layers {
            x = layer.forward(&x, &bias, self.heads, self.act)?;
        }
        Ok(x)
    }

    /// `[1, heads, t, t]`: each head's bias for a key `j − i` tokens from its query.
    fn position_bias(&self, t: usize) -> candle_core::Result<Tensor> {
        let mut idx = Vec::with_capacity(t * t);
        for i in 0..t {
            for j in 0..t {
                idx.push(bucket(j as i64 - i as i64, self.buckets) as u32);
            }
        }
        let idx = Tensor::from_vec(idx, (t * t,), &self.device)?;
        self.relative
            .index_select(&idx, 0)?
            .reshape((t, t, self.heads.count))?
            .permute((2, 0, 1))?
            .contiguous()?
            .unsqueeze(0)
    }
}

/// The bucket of a key `relative` tokens after its query (before when negative), as
/// `MPNetEncoder.relative_position_bucket` computes it: half the buckets for keys before, half
/// for keys after; within each half, exact distances below a quarter of the buckets, then
/// logarithmic steps up to [`MAX_DISTANCE`].
fn bucket(relative: i64, buckets: usize) -> usize {
    let half = buckets / 2;
    let exact = half / 2;
    let n = -relative;
    let base = if n < 0 { half } else { 0 };
    let n = n.unsigned_abs() as usize;
    if n < exact {
        return base + n;
    }
    let scaled = (n as f64 / exact as f64).ln() / (MAX_DISTANCE / exact as f64).ln();
    let large = exact + (scaled * (half - exact) as f64) as usize;
    base + large.min(half - 1)
}

#[cfg(test)]
mod tests {
    #[test]
    fn buckets_match_mpnets() {
        // Values of transformers' `MPNetEncoder.relative_position_bucket` (32 buckets, 128).
        let cases = [
            (0, 0),
            (1, 17),
            (-1, 1),
            (3, 19),
            (-3, 3),
            (7, 23),
            (-7, 7),
            (8, 24),
            (-8, 8),
            (15, 25),
            (-15, 9),
            (20, 26),
            (-20, 10),
            (64, 30),
            (-64, 14),
            (127, 31),
            (-500, 15),
        ];
        for (rel, want) in cases {
            assert_eq!(super::bucket(rel, 32), want, "relative {rel}");
        }
    }
}
