(** * PiIrr: PI is irrational (Niven's argument, without integrals)

    [PI_irrational]: [PI] is no quotient [IZR p / IZR q] of integers.  Its consequences for
    the statement language: [sin_cos_rat_inj] (two reals with equal sine and equal cosine whose
    difference is rational are equal), [sin_cos_int_inj] (the same at integer arguments),
    [sin_cos_rat_sep] (their squared distance on the unit circle is positive when they
    differ), [rat_neq_pi_rat] (a nonzero rational is no [2 PI k / N]).

    The proof: were [PI = a / b] with [b > 0], the polynomial
    [f x = x^n (a - b x)^n / n!] has integer derivatives of every order at [0] (its integer
    coefficients vanish below degree [n]) and at [PI] (as [f (PI - x) = f x]).
    [F = f - f'' + f'''' - ...] satisfies [F'' + F = f], so [G x = F' x sin x - F x cos x]
    has [G' = f sin] and [G PI - G 0 = F PI + F 0] is an integer; by the mean value theorem
    it is [PI f c sin c] with [0 < c < PI], strictly between [0] and [1] for [n] large
    ([(PI a)^n / n!] tends to [0]).  Polynomials are lists of integer coefficients ([niv_ev]:
    their value, [niv_D]: their formal derivative, [niv_ev_deriv] its agreement with the
    derivative of [niv_ev]).
*)

From Coq Require Import ZArith Reals Lia Lra List.
From PEProof Require Import Defs.
Import ListNotations.
Local Open Scope R_scope.

(** ** Polynomials with integer coefficients *)

Fixpoint niv_ev (p : list Z) (x : R) : R :=
  match p with nil => 0 | c :: q => IZR c + x * niv_ev q x end.

Fixpoint niv_dpos (k : Z) (p : list Z) : list Z :=
  match p with nil => nil | c :: q => (k * c)%Z :: niv_dpos (k + 1) q end.

Definition niv_D (p : list Z) : list Z := match p with nil => nil | _ :: q => niv_dpos 1 q end.

Definition niv_iterD (k : nat) (p : list Z) : list Z := Nat.iter k niv_D p.

Lemma niv_dpos_ev : forall q k x,
  niv_ev (niv_dpos k q) x = IZR k * niv_ev q x + x * niv_ev (niv_D q) x.
Proof.
  induction q as [|c q IH]; intros k x; simpl.
  - ring.
  - rewrite IH, (IH 1%Z), plus_IZR, mult_IZR. ring.
Qed.

Lemma niv_dlim_ext : forall f g x l, (forall y, f y = g y) ->
  derivable_pt_lim f x l -> derivable_pt_lim g x l.
Proof.
  intros f g x l E H eps Heps; destruct (H eps Heps) as [d Hd]; exists d.
  intros h Hh Hd'; rewrite <- !E; apply Hd; assumption.
Qed.

Lemma niv_ev_deriv : forall p x, derivable_pt_lim (niv_ev p) x (niv_ev (niv_D p) x).
Proof.
  induction p as [|c q IH]; intro x.
  - apply (niv_dlim_ext (fct_cte 0)); [intro; reflexivity|].
    simpl; apply derivable_pt_lim_const.
  - apply (niv_dlim_ext (fct_cte (IZR c) + (id * niv_ev q))%F); [intro; reflexivity|].
    replace (niv_ev (niv_D (c :: q)) x) with (0 + (1 * niv_ev q x + id x * niv_ev (niv_D q) x)).
    + apply derivable_pt_lim_plus; [apply derivable_pt_lim_const|].
      apply derivable_pt_lim_mult; [apply derivable_pt_lim_id|apply IH].
    + simpl; rewrite niv_dpos_ev; unfold id; ring.
Qed.

Lemma niv_nth_dpos : forall q k j, (nth j (niv_dpos k q) 0 = (k + Z.of_nat j) * nth j q 0)%Z.
Proof.
  induction q as [|c q IH]; intros k j; destruct j as [|j]; simpl; try ring.
  rewrite IH; f_equal; lia.
Qed.

Lemma niv_nth_D : forall p j, nth j (niv_D p) 0%Z = (Z.of_nat (S j) * nth (S j) p 0%Z)%Z.
Proof.
  intros p j; rewrite Nat2Z.inj_succ; destruct p as [|c q]; simpl.
  - destruct j; simpl; ring.
  - rewrite niv_nth_dpos; ring.
Qed.

Lemma niv_nth_iterD : forall k j p,
  (Z.of_nat (fact j) * nth j (niv_iterD k p) 0 = Z.of_nat (fact (j + k)) * nth (j + k) p 0)%Z.
Proof.
  induction k as [|k IH]; intros j p.
  - rewrite Nat.add_0_r; reflexivity.
  - unfold niv_iterD; simpl Nat.iter; fold (niv_iterD k p).
    rewrite niv_nth_D, Nat.add_succ_r.
    replace (S (j + k)) with (S j + k)%nat by lia.
    rewrite <- (IH (S j)), Z.mul_assoc.
    f_equal; change (fact (S j)) with (S j * fact j)%nat.
    rewrite Nat2Z.inj_mul; ring.
Qed.

Lemma niv_ev_0 : forall p, niv_ev p 0 = IZR (nth 0 p 0%Z).
Proof. destruct p; simpl; ring. Qed.

Lemma niv_length_iterD : forall k p, (length p <= k)%nat -> niv_iterD k p = nil.
Proof.
  assert (LD : forall q k, length (niv_dpos k q) = length q)
    by (induction q; intro; simpl; auto).
  assert (L : forall k p, length (niv_iterD k p) = (length p - k)%nat).
  { induction k as [|k IH]; intro p; [simpl; lia|].
    unfold niv_iterD; simpl Nat.iter; fold (niv_iterD k p).
    replace (length p - S k)%nat with (pred (length p - k)) by lia.
    rewrite <- IH; destruct (niv_iterD k p) as [|c q]; simpl; [reflexivity|].
    rewrite LD; lia. }
  intros k p H; specialize (L k p).
  destruct (niv_iterD k p); [reflexivity | simpl in L; lia].
Qed.

Fixpoint niv_padd (p q : list Z) : list Z :=
  match p, q with
  | nil, _ => q
  | _, nil => p
  | c :: p', e :: q' => (c + e)%Z :: niv_padd p' q'
  end.

Fixpoint niv_pmul (p q : list Z) : list Z :=
  match p with nil => nil | c :: p' => niv_padd (map (Z.mul c) q) (0%Z :: niv_pmul p' q) end.

Fixpoint niv_ppow (p : list Z) (n : nat) : list Z :=
  match n with O => [1%Z] | S n => niv_pmul p (niv_ppow p n) end.

Definition niv_pshift (n : nat) (p : list Z) : list Z := Nat.iter n (cons 0%Z) p.

Lemma niv_ev_padd : forall p q x, niv_ev (niv_padd p q) x = niv_ev p x + niv_ev q x.
Proof.
  induction p as [|c p IH]; intros q x; destruct q as [|e q]; simpl; try ring.
  rewrite IH, plus_IZR; ring.
Qed.

Lemma niv_ev_scale : forall q c x, niv_ev (map (Z.mul c) q) x = IZR c * niv_ev q x.
Proof. induction q as [|e q IH]; intros c x; simpl; [|rewrite IH, mult_IZR]; ring. Qed.

Lemma niv_ev_pmul : forall p q x, niv_ev (niv_pmul p q) x = niv_ev p x * niv_ev q x.
Proof.
  induction p as [|c p IH]; intros q x; simpl; [ring|].
  rewrite niv_ev_padd, niv_ev_scale; simpl; rewrite IH; ring.
Qed.

Lemma niv_ev_ppow : forall p n x, niv_ev (niv_ppow p n) x = niv_ev p x ^ n.
Proof. induction n as [|n IH]; intro x; simpl; [ring|rewrite niv_ev_pmul, IH; ring]. Qed.

Lemma niv_ev_pshift : forall n p x, niv_ev (niv_pshift n p) x = x ^ n * niv_ev p x.
Proof.
  induction n as [|n IH]; intros p x; unfold niv_pshift in *; simpl; [ring|].
  rewrite IH; ring.
Qed.

Lemma niv_nth_pshift : forall n p k, (k < n)%nat -> nth k (niv_pshift n p) 0%Z = 0%Z.
Proof.
  induction n as [|n IH]; intros p k H; [lia|].
  unfold niv_pshift in *; simpl; destruct k as [|k]; [reflexivity|apply IH; lia].
Qed.

Lemma niv_fact_mul : forall n j, exists m, fact (n + j) = (fact n * m)%nat.
Proof.
  intros n j; induction j as [|j [m Hm]]; [exists 1%nat; rewrite Nat.add_0_r; lia|].
  exists (S (n + j) * m)%nat; rewrite Nat.add_succ_r.
  change (fact (S (n + j))) with (S (n + j) * fact (n + j))%nat.
  rewrite Hm; ring.
Qed.

Definition niv_isZ (r : R) : Prop := exists z : Z, r = IZR z.

(** ** Alternating sums of derivatives *)

Fixpoint niv_alt (dd : nat -> R -> R) (m : nat) (x : R) : R :=
  match m with O => 0 | S m => dd O x - niv_alt (fun k => dd (S (S k))) m x end.

Lemma niv_alt_deriv : forall m dd x, (forall k y, derivable_pt_lim (dd k) y (dd (S k) y)) ->
  derivable_pt_lim (niv_alt dd m) x (niv_alt (fun k => dd (S k)) m x).
Proof.
  induction m as [|m IH]; intros dd x H.
  - apply (niv_dlim_ext (fct_cte 0)); [intro; reflexivity|apply derivable_pt_lim_const].
  - apply (niv_dlim_ext (dd O - niv_alt (fun k => dd (S (S k))) m)%F); [intro; reflexivity|].
    apply derivable_pt_lim_minus; [apply H|].
    apply (IH (fun k => dd (S (S k)))); intros; apply H.
Qed.

Lemma niv_alt_step : forall m dd x,
  niv_alt dd (S m) x = niv_alt dd m x + (-1) ^ m * dd (2 * m)%nat x.
Proof.
  induction m as [|m IH]; intros dd x; [simpl; ring|].
  change (niv_alt dd (S (S m)) x) with (dd O x - niv_alt (fun k => dd (S (S k))) (S m) x).
  rewrite IH; replace (2 * S m)%nat with (S (S (2 * m))) by lia; simpl; ring.
Qed.

Lemma niv_isZ_opp : forall r, niv_isZ r -> niv_isZ (- r).
Proof. intros r [z ->]; exists (- z)%Z; rewrite opp_IZR; reflexivity. Qed.

Lemma niv_alt_isZ : forall m dd x, (forall k, niv_isZ (dd k x)) -> niv_isZ (niv_alt dd m x).
Proof.
  induction m as [|m IH]; intros dd x H; [exists 0%Z; reflexivity|].
  destruct (H O) as [z Hz]; destruct (IH (fun k => dd (S (S k))) x) as [w Hw];
    [intro; apply H|].
  exists (z - w)%Z; simpl; rewrite Hz, Hw, minus_IZR; reflexivity.
Qed.

Lemma niv_isZ_sign : forall k r, niv_isZ r -> niv_isZ ((-1) ^ k * r).
Proof.
  induction k as [|k IH]; intros r H; simpl; [rewrite Rmult_1_l; assumption|].
  replace (-1 * (-1) ^ k * r) with (- ((-1) ^ k * r)) by ring; apply niv_isZ_opp, IH, H.
Qed.

(** ** Niven's polynomial [x^n (a - b x)^n / n!] and its derivatives *)

Definition niv_gp (a b : Z) (n : nat) : list Z := niv_pshift n (niv_ppow [a; (- b)%Z] n).

Definition niv_dn (a b : Z) (n k : nat) (x : R) : R :=
  niv_ev (niv_iterD k (niv_gp a b n)) x / INR (fact n).

Lemma niv_ev_gp : forall a b n x, niv_ev (niv_gp a b n) x = (x * (IZR a - IZR b * x)) ^ n.
Proof.
  intros; unfold niv_gp; rewrite niv_ev_pshift, niv_ev_ppow, Rpow_mult_distr; simpl.
  rewrite opp_IZR; f_equal; f_equal; ring.
Qed.

Lemma niv_dn_deriv : forall a b n k x, derivable_pt_lim (niv_dn a b n k) x (niv_dn a b n (S k) x).
Proof.
  intros; unfold niv_dn.
  apply (niv_dlim_ext (mult_real_fct (/ INR (fact n)) (niv_ev (niv_iterD k (niv_gp a b n)))));
    [intro; unfold mult_real_fct, Rdiv; ring|].
  replace (niv_ev (niv_iterD (S k) (niv_gp a b n)) x / INR (fact n))
    with (/ INR (fact n) * niv_ev (niv_D (niv_iterD k (niv_gp a b n))) x)
    by (unfold Rdiv; simpl; ring).
  apply derivable_pt_lim_scal, niv_ev_deriv.
Qed.

Lemma niv_dn_0 : forall a b n k, niv_isZ (niv_dn a b n k 0).
Proof.
  intros a b n k; unfold niv_dn; rewrite niv_ev_0.
  pose proof (niv_nth_iterD k 0 (niv_gp a b n)) as E; simpl fact in E; rewrite Z.mul_1_l in E.
  rewrite E; clear E; simpl Nat.add.
  destruct (Nat.lt_ge_cases k n) as [L|L].
  - unfold niv_gp; rewrite niv_nth_pshift by exact L.
    exists 0%Z; rewrite Z.mul_0_r; unfold Rdiv; ring.
  - destruct (niv_fact_mul n (k - n)) as [m Hm]; replace (n + (k - n))%nat with k in Hm by lia.
    exists (Z.of_nat m * nth k (niv_gp a b n) 0)%Z.
    rewrite Hm, Nat2Z.inj_mul, !mult_IZR, <- !INR_IZR_INZ.
    field; apply INR_fact_neq_0.
Qed.

Lemma niv_dn_sym : forall a b n, IZR a = IZR b * PI ->
  forall k x, niv_dn a b n k (PI - x) = (-1) ^ k * niv_dn a b n k x.
Proof.
  intros a b n Hpi k; induction k as [|k IH]; intro x.
  - unfold niv_dn; simpl niv_iterD; rewrite !niv_ev_gp; simpl; rewrite Rmult_1_l; f_equal; f_equal.
    rewrite Hpi; ring.
  - assert (L1 : derivable_pt_lim (fun y => niv_dn a b n k (PI - y)) x
                   (niv_dn a b n (S k) (PI - x) * (0 - 1))).
    { apply (niv_dlim_ext (comp (niv_dn a b n k) (fct_cte PI - id)%F)); [intro; reflexivity|].
      apply derivable_pt_lim_comp; [|apply niv_dn_deriv].
      apply derivable_pt_lim_minus; [apply derivable_pt_lim_const|apply derivable_pt_lim_id]. }
    assert (L2 : derivable_pt_lim (fun y => niv_dn a b n k (PI - y)) x
                   ((-1) ^ k * niv_dn a b n (S k) x)).
    { apply (niv_dlim_ext (mult_real_fct ((-1) ^ k) (niv_dn a b n k)));
        [intro; unfold mult_real_fct; rewrite IH; reflexivity|].
      apply derivable_pt_lim_scal, niv_dn_deriv. }
    pose proof (uniqueness_limite _ _ _ _ L1 L2) as U; simpl; lra.
Qed.

(** ** The contradiction *)

Lemma niv_contra : forall a b : Z, (0 < b)%Z -> IZR a = IZR b * PI -> False.
Proof.
  intros a b Hb Hpi.
  assert (Hb' : 0 < IZR b) by (apply IZR_lt; exact Hb).
  assert (Ha : 0 < IZR a) by (rewrite Hpi; apply Rmult_lt_0_compat; [exact Hb'|apply PI_RGT_0]).
  destruct (cv_speed_pow_fact (PI * IZR a) (/ PI)) as [n Hn];
    [apply Rinv_0_lt_compat, PI_RGT_0|].
  specialize (Hn n (le_n n)); unfold R_dist in Hn; rewrite Rminus_0_r in Hn.
  set (dd := niv_dn a b n); set (M := length (niv_gp a b n)).
  set (F := niv_alt dd M); set (F1 := niv_alt (fun k => dd (S k)) M).
  set (F2 := niv_alt (fun k => dd (S (S k))) M).
  assert (Key : forall x, F2 x + F x = dd O x).
  { intro x; assert (E : niv_alt dd (S M) x = dd O x - F2 x) by reflexivity.
    rewrite niv_alt_step in E.
    assert (Z0 : dd (2 * M)%nat x = 0).
    { unfold dd, niv_dn; rewrite niv_length_iterD by lia; simpl; unfold Rdiv; ring. }
    rewrite Z0 in E; unfold F; lra. }
  set (G := fun x => F1 x * sin x - F x * cos x).
  assert (DG : forall c, 0 <= c <= PI -> derivable_pt_lim G c (dd O c * sin c)).
  { intros c _; apply (niv_dlim_ext (F1 * sin - F * cos)%F); [intro; reflexivity|].
    replace (dd O c * sin c)
      with ((F2 c * sin c + F1 c * cos c) - (F1 c * cos c + F c * - sin c))
      by (rewrite <- Key; ring).
    assert (HD : forall k y, derivable_pt_lim (dd k) y (dd (S k) y)) by apply niv_dn_deriv.
    apply derivable_pt_lim_minus; apply derivable_pt_lim_mult.
    - apply (niv_alt_deriv M (fun k => dd (S k))); intros; apply HD.
    - apply derivable_pt_lim_sin.
    - apply niv_alt_deriv, HD.
    - apply derivable_pt_lim_cos. }
  destruct (MVT_cor2 G (fun c => dd O c * sin c) 0 PI PI_RGT_0 DG) as [c [Hc [Hc0 HcP]]].
  assert (HZ : niv_isZ (G PI - G 0)).
  { unfold G; rewrite sin_PI, cos_PI, sin_0, cos_0.
    replace (F1 PI * 0 - F PI * -1 - (F1 0 * 0 - F 0 * 1)) with (F PI + F 0) by ring.
    destruct (niv_alt_isZ M dd PI) as [z1 H1].
    { intro k; replace PI with (PI - 0) by ring; unfold dd; rewrite niv_dn_sym by exact Hpi.
      apply niv_isZ_sign, niv_dn_0. }
    destruct (niv_alt_isZ M dd 0) as [z2 H2]; [intro; apply niv_dn_0|].
    exists (z1 + z2)%Z; unfold F; rewrite H1, H2, plus_IZR; reflexivity. }
  destruct HZ as [z Hz]; rewrite Hz in Hc.
  assert (Hs : 0 < sin c <= 1) by (split; [apply sin_gt_0; assumption|apply (proj2 (SIN_bound c))]).
  assert (Hu : 0 < c * (IZR a - IZR b * c) < PI * IZR a).
  { rewrite Hpi; split; [apply Rmult_lt_0_compat; nra|nra]. }
  assert (Hf : 0 < dd O c <= (PI * IZR a) ^ n / INR (fact n)).
  { unfold dd, niv_dn; simpl niv_iterD; rewrite niv_ev_gp.
    pose proof (INR_fact_lt_0 n) as Hfact; split.
    - apply Rdiv_lt_0_compat; [apply pow_lt; lra|exact Hfact].
    - unfold Rdiv; apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat, Hfact|].
      apply pow_incr; lra. }
  rewrite Rabs_right in Hn by lra.
  assert (Z1 : 0 < IZR z).
  { rewrite Hc; apply Rmult_lt_0_compat; [apply Rmult_lt_0_compat; lra|lra]. }
  assert (Z2 : IZR z < 1).
  { rewrite Hc, Rminus_0_r.
    assert (P : 0 < PI) by apply PI_RGT_0.
    apply Rle_lt_trans with ((PI * IZR a) ^ n / INR (fact n) * PI).
    { apply Rmult_le_compat_r; [lra|].
      apply Rle_trans with (dd O c * 1); [apply Rmult_le_compat_l; lra|lra]. }
    apply Rlt_le_trans with (/ PI * PI); [nra|right; field; lra]. }
  apply lt_0_IZR in Z1; apply lt_IZR in Z2; lia.
Qed.

Lemma PI_irrational : forall p q : Z, (q <> 0)%Z -> PI <> IZR p / IZR q.
Proof.
  intros p q Hq E.
  assert (Hq' : IZR q <> 0) by (apply not_0_IZR; exact Hq).
  destruct (Z_lt_le_dec q 0) as [L|L].
  - apply (niv_contra (- p) (- q)); [lia|rewrite !opp_IZR, E; field; exact Hq'].
  - apply (niv_contra p q); [lia|rewrite E; field; exact Hq'].
Qed.

(** ** Consequences (the forms peproof/kernel/coq/pi_scripts.py applies) *)

(** Equal sine and cosine at two reals whose difference is the rational [p / q]: [p = 0]. *)
Lemma sin_cos_rat_zero : forall x y p q, (q <> 0)%Z -> x - y = IZR p / IZR q ->
  sin x = sin y -> cos x = cos y -> p = 0%Z.
Proof.
  intros x y p q Hq E Hs Hc.
  assert (Hq' : IZR q <> 0) by (apply not_0_IZR; exact Hq).
  assert (S0 : sin (x - y) = 0) by (rewrite sin_minus, Hs, Hc; ring).
  destruct (sin_eq_0_0 _ S0) as [k Hk].
  destruct (Z.eq_dec k 0) as [K|K].
  - subst k; rewrite Rmult_0_l in Hk; rewrite Hk in E; apply eq_IZR.
    apply (Rmult_eq_reg_r (/ IZR q)); [|apply Rinv_neq_0_compat, Hq'].
    rewrite Rmult_0_l; symmetry; exact E.
  - exfalso; apply (PI_irrational p (q * k)); [lia|].
    assert (Hk' : IZR k <> 0) by (apply not_0_IZR; exact K).
    rewrite mult_IZR; apply (Rmult_eq_reg_l (IZR k)); [|exact Hk'].
    rewrite <- Hk, E; field; split; assumption.
Qed.

Lemma sin_cos_rat_inj : forall x y p q, (q <> 0)%Z -> x - y = IZR p / IZR q ->
  sin x = sin y -> cos x = cos y -> x = y.
Proof.
  intros x y p q Hq E Hs Hc; pose proof (sin_cos_rat_zero x y p q Hq E Hs Hc); subst p.
  unfold Rdiv in E; rewrite Rmult_0_l in E; lra.
Qed.

Lemma sin_cos_int_inj : forall a b : Z,
  sin (IZR a) = sin (IZR b) -> cos (IZR a) = cos (IZR b) -> a = b.
Proof.
  intros a b Hs Hc; assert (E : (a - b = 0)%Z); [|lia].
  apply (sin_cos_rat_zero (IZR a) (IZR b) (a - b) 1); try assumption; [lia|].
  rewrite minus_IZR; field.
Qed.

(** Two points on the unit circle at angles whose difference is a nonzero rational are apart. *)
Lemma sin_cos_rat_pos : forall x y p q, (p <> 0)%Z -> (q <> 0)%Z -> x - y = IZR p / IZR q ->
  0 < (sin x - sin y) ^ 2 + (cos x - cos y) ^ 2.
Proof.
  intros x y p q Hp Hq E.
  destruct (Rle_or_lt ((sin x - sin y) ^ 2 + (cos x - cos y) ^ 2) 0) as [L|L]; [|exact L].
  pose proof (pow2_ge_0 (sin x - sin y)); pose proof (pow2_ge_0 (cos x - cos y)).
  exfalso; apply Hp, (sin_cos_rat_zero x y p q Hq E); apply Rminus_diag_uniq, Rsqr_0_uniq;
    unfold Rsqr; lra.
Qed.

(** A nonzero rational [c1 / c2] is not [PI] times a rational [p / q]. *)
Lemma pi_rat_neq : forall c1 c2 p q : Z, (c1 <> 0)%Z -> (c2 <> 0)%Z -> (q <> 0)%Z ->
  IZR c1 / IZR c2 <> PI * (IZR p / IZR q).
Proof.
  intros c1 c2 p q H1 H2 Hq E.
  assert (H1' : IZR c1 <> 0) by (apply not_0_IZR; exact H1).
  assert (H2' : IZR c2 <> 0) by (apply not_0_IZR; exact H2).
  assert (Hq' : IZR q <> 0) by (apply not_0_IZR; exact Hq).
  destruct (Z.eq_dec p 0) as [P|P].
  - subst p; apply H1'; apply (Rmult_eq_reg_r (/ IZR c2)); [|apply Rinv_neq_0_compat, H2'].
    unfold Rdiv in E; rewrite E; ring.
  - assert (P' : IZR p <> 0) by (apply not_0_IZR; exact P).
    apply (PI_irrational (c1 * q) (c2 * p)); [lia|].
    rewrite !mult_IZR; apply (Rmult_eq_reg_r (IZR p / IZR q)).
    + rewrite <- E; field; repeat split; assumption.
    + unfold Rdiv; apply Rmult_integral_contrapositive_currified;
        [exact P'|apply Rinv_neq_0_compat, Hq'].
Qed.

(** A sum whose first term is positive and whose other terms are not negative is positive. *)
Lemma zsum_pos_first : forall a b f, (a <= b)%Z -> 0 < f a ->
  (forall i, (a < i <= b)%Z -> 0 <= f i) -> 0 < zsum a b f.
Proof.
  intros a b f Hab Ha Hf; rewrite zsum_first.
  assert (N : forall n c, (a < c)%Z -> (c + Z.of_nat n <= b + 1)%Z -> 0 <= zsum_n c n f).
  { induction n as [|n IH]; intros c Hc Hn; simpl; [lra|].
    pose proof (IH c Hc ltac:(lia)); pose proof (Hf (c + Z.of_nat n)%Z ltac:(lia)); lra. }
  unfold zsum; destruct (Z.leb_spec (a + 1) (b + 1)); [|lia].
  pose proof (N (Z.to_nat (b + 1 - (a + 1))) (a + 1)%Z ltac:(lia) ltac:(lia)); lra.
Qed.
